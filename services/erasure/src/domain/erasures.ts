import { createHmac } from 'node:crypto';
import type { MessageContext, Publisher } from '@postbus/bus';
import { NotYetKnownError } from '@postbus/bus/errors';
import {
  Topics,
  userOrderingKey,
  type ErasureConfirmedEvent,
  type ErasureExecuteCommand,
  type ErasureRequestCommand,
} from '@postbus/contracts';
import type { Logger } from '@postbus/logger';
import type { ErasureStore } from './ports';
import type { ErasureDoc } from './records';

export interface ErasuresDeps {
  repository: ErasureStore;
  publisher: Publisher;
  logger: Logger;
  /** The services that must confirm before an erasure is complete. */
  participants: string[];
  /** HMAC key of the email hash kept in the audit record. */
  auditKey: string;
  /** An erasure not confirmed by everyone after this long is sent again. */
  confirmTimeoutMs: number;
  /** How long after completion the erasure is sent once more, before its identifiers are dropped. */
  sweepDelayMs: number;
  /** How long an erase by user_id waits for the user to be announced. */
  userWaitMs: number;
  now?: () => Date;
}

const CLAIM_BATCH = 100;

/**
 * The erasure queue: requests wait ERASURE_DELAY, then every participant is told to erase and the
 * request completes when all have confirmed. Delivery is at-least-once and several instances may
 * run, so every step is idempotent and event ids derive from the erasure id.
 */
export class Erasures {
  private readonly now: () => Date;

  constructor(private readonly deps: ErasuresDeps) {
    this.now = deps.now ?? (() => new Date());
  }

  async request(cmd: ErasureRequestCommand, ctx: MessageContext): Promise<void> {
    const { repository, publisher, logger } = this.deps;
    const known = await repository.users.find(cmd.projectId, cmd.user);
    if (!known && cmd.user.email === undefined && this.now().getTime() - Date.parse(cmd.acceptedAt) < this.deps.userWaitMs) {
      throw new NotYetKnownError('the user to erase');
    }
    const email = known?.email ?? cmd.user.email ?? null;
    const userId = known?.userId ?? cmd.user.userId ?? null;
    const keys = repository.personKeys(cmd.projectId, { email, userId });
    const open = await repository.openRequest(keys);
    // Two requests for one person handled at once (by email and by user_id they travel on different
    // partitions) both find nothing open: the unique insert of the person's first key decides.
    const holder = open?.erasureId ?? (await repository.claimKey(keys[0]!, cmd.erasureId, new Date(cmd.eraseAt)));
    if (holder !== cmd.erasureId) {
      // The gateway answers a repeat with the open erasure; this one raced it, and its id joins it.
      await repository.alias(cmd.erasureId, holder);
      logger.info('erase request for a person already queued', { erasureId: holder, duplicate: cmd.erasureId });
      return;
    }
    const erasure: ErasureDoc = {
      _id: cmd.erasureId,
      projectId: cmd.projectId,
      status: 'queued',
      subjectId: known?.id ?? null,
      email,
      userId,
      emailHmac: email ? createHmac('sha256', this.deps.auditKey).update(email).digest('hex') : null,
      requestedAt: new Date(cmd.acceptedAt),
      eraseAt: new Date(cmd.eraseAt),
      executedAt: null,
      completedAt: null,
      createdAt: new Date(cmd.acceptedAt),
    };
    await repository.open(erasure, keys);
    await publisher.publish(
      Topics.ErasureEvents,
      'user.erasure_scheduled',
      userOrderingKey(cmd.projectId, cmd.user),
      {
        erasureId: erasure._id,
        projectId: erasure.projectId,
        id: erasure.subjectId,
        email,
        userId,
        requestedAt: cmd.acceptedAt,
        eraseAt: cmd.eraseAt,
      },
      { id: `${cmd.erasureId}:scheduled`, ...(ctx.requestId ? { requestId: ctx.requestId } : {}) },
    );
    logger.info('erasure scheduled', { erasureId: cmd.erasureId, eraseAt: cmd.eraseAt });
  }

  /**
   * Claims the erasures that are due (or whose confirmations are overdue) and tells every
   * participant to erase. The claim's lease is the confirmation timeout: an erasure still not
   * complete by then (a participant was down, this instance died) is claimed and sent again.
   */
  async runDue(): Promise<number> {
    const { repository, publisher, logger } = this.deps;
    let sent = 0;
    for (;;) {
      const claimed = await repository.claimDue(CLAIM_BATCH, this.deps.confirmTimeoutMs);
      for (const { id } of claimed) {
        const erasure = await repository.byId(id);
        if (!erasure) {
          await repository.due.done(id);
        } else if (erasure.status === 'completed') {
          await this.sweep(erasure);
        } else {
          // Marked first: were this instance to die before publishing, the lease brings the erasure back.
          const executedAt = erasure.executedAt ?? this.now();
          if (erasure.status === 'queued') await repository.markExecuting(id, executedAt);
          await publisher.publish(Topics.ErasureEvents, 'erasure.execute', id, this.subjectOf(erasure, executedAt), {
            id: `${id}:execute`,
          });
          if (erasure.status === 'queued') logger.info('erasure sent to the services', { erasureId: id });
          else
            logger.warn('erasure sent again: services have not confirmed it in time', {
              erasureId: id,
              waitingFor: await this.waitingFor(id),
            });
          sent++;
        }
      }
      if (claimed.length < CLAIM_BATCH) return sent;
    }
  }

  async confirmed(event: ErasureConfirmedEvent, ctx: MessageContext): Promise<void> {
    const { repository, publisher, logger } = this.deps;
    const erasure = await repository.byId(event.erasureId);
    if (!erasure || erasure.status === 'completed') return;
    const confirmations = await repository.confirm({
      _id: `${event.erasureId}:${event.service}`,
      erasureId: event.erasureId,
      service: event.service,
      erased: event.erased,
      at: new Date(ctx.time),
    });
    const confirmedBy = new Set(confirmations.map((c) => c.service));
    if (!this.deps.participants.every((p) => confirmedBy.has(p))) return;
    // The time of the last confirmation: the same whichever instance (or redelivery) completes it.
    const completedAt = new Date(Math.max(...confirmations.map((c) => c.at.getTime())));
    // Announced before it is marked complete: a process dying in between leaves it incomplete, and
    // the redelivered confirmation announces it again (same event id) rather than never.
    await publisher.publish(
      Topics.ErasureEvents,
      'user.erased',
      `${erasure.projectId}:erasure:${erasure._id}`,
      {
        erasureId: erasure._id,
        projectId: erasure.projectId,
        requestedAt: erasure.requestedAt.toISOString(),
        eraseAt: erasure.eraseAt.toISOString(),
        completedAt: completedAt.toISOString(),
      },
      { id: `${erasure._id}:erased` },
    );
    await repository.complete(erasure, completedAt, new Date(completedAt.getTime() + this.deps.sweepDelayMs));
    logger.info('erasure completed', { erasureId: erasure._id });
  }

  /**
   * The last step: the erasure goes to the services once more, for what work already in flight
   * at the first pass wrote after it (a trigger, a retry, a late event), then the request forgets
   * who it was about. No confirmations are awaited: the command waits on the bus for a service that is down.
   */
  private async sweep(erasure: ErasureDoc): Promise<void> {
    if (erasure.email !== null || erasure.userId !== null || erasure.subjectId !== null) {
      const before = erasure.executedAt ?? erasure.completedAt ?? this.now();
      await this.deps.publisher.publish(Topics.ErasureEvents, 'erasure.execute', erasure._id, this.subjectOf(erasure, before), {
        id: `${erasure._id}:sweep`,
      });
      await this.deps.repository.forgetSubject(erasure);
      this.deps.logger.info('erasure swept; its identifiers are gone', { erasureId: erasure._id });
    }
    await this.deps.repository.due.done(erasure._id);
  }

  private async waitingFor(erasureId: string): Promise<string[]> {
    const confirmed = new Set(((await this.deps.repository.confirmations([erasureId])).get(erasureId) ?? []).map((c) => c.service));
    return this.deps.participants.filter((p) => !confirmed.has(p));
  }

  private subjectOf(erasure: ErasureDoc, before: Date): ErasureExecuteCommand {
    return {
      erasureId: erasure._id,
      projectId: erasure.projectId,
      id: erasure.subjectId,
      email: erasure.email,
      userId: erasure.userId,
      before: before.toISOString(),
    };
  }
}
