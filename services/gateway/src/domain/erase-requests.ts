import { randomBytes } from 'node:crypto';
import { Topics, userOrderingKey, type UserRef } from '@postbus/contracts';
import type { CommandPublisher } from './ports/commands';
import type { ErasureQueue } from './ports/erasure';

export interface EraseRequestsDeps {
  commands: CommandPublisher;
  /** The erasure service's view of the person: their open erasure, and when a new one would run. */
  erasures: ErasureQueue;
  /** The address of a user known by user_id, or null (an erase by user_id is also ordered before that address's triggers). */
  emailOfUser: (projectId: string, userId: string) => Promise<string | null>;
  newErasureId?: () => string;
  now?: () => Date;
}

/** An accepted erase: the erasure that will run, and when. */
export interface AcceptedErase {
  erasureId: string;
  eraseAt: string;
}

/**
 * An erase request of the public API (docs/architecture.md#erasure). A repeat for a person with an
 * erasure queued answers with that erasure; otherwise a new one goes to the erasure service, and
 * the erase is also put on the email commands under every ordering key the person's triggers may
 * have (triggers are keyed by address), so the mailer suppresses them before any later trigger of theirs.
 */
export class EraseRequests {
  private readonly newErasureId: () => string;
  private readonly now: () => Date;

  constructor(private readonly deps: EraseRequestsDeps) {
    this.newErasureId = deps.newErasureId ?? (() => `era_${randomBytes(16).toString('hex')}`);
    this.now = deps.now ?? (() => new Date());
  }

  async erase(projectId: string, user: UserRef, requestId: string): Promise<AcceptedErase> {
    const open = await this.deps.erasures.open(projectId, user);
    if (open.erasure) return { erasureId: open.erasure.id, eraseAt: open.erasure.erase_at };
    const erasureId = this.newErasureId();
    const acceptedAt = this.now().toISOString();
    await Promise.all([
      this.deps.commands.send(
        Topics.ErasureCommands,
        'erasure.request',
        userOrderingKey(projectId, user),
        { erasureId, projectId, user, acceptedAt, eraseAt: open.erase_at_if_new },
        requestId,
      ),
      this.orderBeforeLaterTriggers(projectId, user, erasureId, acceptedAt, requestId),
    ]);
    return { erasureId, eraseAt: open.erase_at_if_new };
  }

  private async orderBeforeLaterTriggers(projectId: string, user: UserRef, erasureId: string, requestedAt: string, requestId: string) {
    const email = user.email ?? (user.userId !== undefined ? await this.deps.emailOfUser(projectId, user.userId) : null);
    const data = { erasureId, projectId, email, userId: user.userId ?? null, requestedAt };
    const keys = new Set([userOrderingKey(projectId, user), ...(email !== null ? [userOrderingKey(projectId, { email })] : [])]);
    await Promise.all(
      [...keys].map((key) => this.deps.commands.send(Topics.EmailCommands, 'email.erasure_requested', key, data, requestId)),
    );
  }
}
