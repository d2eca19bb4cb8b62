import { createHash } from 'node:crypto';
import type { Publisher } from '@postbus/bus';
import { Topics, userOrderingKey, type EmailUnsuppressCommand, type SuppressionReason } from '@postbus/contracts';
import type { BlockRequest, SuppressionDoc, SuppressionRecords } from './ports/suppressions';
import { isLiftable } from './suppression-reasons';

type Change = 'suppression.created' | 'suppression.deleted';

/**
 * A project's suppression list as its clients see it change: each address entering it (a bounce,
 * a complaint, an unsubscribe, the client's own) or lifted by the client is announced on the bus,
 * for the `suppression.*` webhooks. An announcement's id derives from the suppression's own list
 * entry, so a redelivered command or report that finds the suppression in place announces the same
 * change again, which subscribers receive once.
 */
export class SuppressionList {
  constructor(
    private readonly suppressions: SuppressionRecords,
    private readonly publisher: Publisher,
  ) {}

  /** Suppresses addresses for every email of their projects, together (see `Suppressions.blockAll`). */
  async block(requests: BlockRequest[]): Promise<void> {
    const suppressions = await this.suppressions.blockAll(requests);
    await Promise.all(suppressions.map((s, i) => this.announce('suppression.created', s, requests[i]!.email)));
  }

  /** Suppresses an unsubscribed address (for emails not sent to the unsubscribed). */
  async unsubscribed(projectId: string, email: string, at: Date): Promise<void> {
    await this.announce('suppression.created', await this.suppressions.unsubscribed(projectId, email, at), email);
  }

  /**
   * Lifts a bounce's or the client's suppression of an address, and with `resubscribe` its
   * unsubscribe, asking the users service (the owner of subscription state) to subscribe the user
   * again. Each is announced, and asked for, before it is lifted: a process that dies in between
   * lifts it when the command comes again, and announces the same change. `commandId`: the
   * command's id, from which the resubscribe's id derives.
   *
   * A complaint is never lifted: one the address has now (come after the client's DELETE was
   * checked) makes the lift change nothing, and one that comes while the block is being lifted is
   * put back as a new suppression (announced as created) — the unsubscribe then stays too.
   */
  async lift(command: EmailUnsuppressCommand, commandId: string): Promise<void> {
    const { projectId, email } = command;
    const at = new Date(command.acceptedAt);
    const blocked = await this.suppressions.blocking(projectId, email);
    if (blocked?.causes.some((cause) => !isLiftable(cause.reason))) {
      // Its block may lack it still (a complaint half stored, or put back by a process that died): complete it.
      await this.kept(await this.suppressions.keptComplaint(projectId, email), email);
      return;
    }
    if (blocked) {
      await this.announce('suppression.deleted', blocked.suppression, email, at);
      const { kept } = await this.suppressions.unblock(projectId, email, blocked);
      if (kept) return this.kept(kept, email);
    }
    const unsubscribe = command.resubscribe ? await this.suppressions.unsubscription(projectId, email) : null;
    if (unsubscribe) {
      await this.announce('suppression.deleted', unsubscribe, email, at);
      await this.publisher.publish(
        Topics.UserCommands,
        'user.resubscribe',
        userOrderingKey(projectId, { email }),
        { projectId, user: { email }, acceptedAt: command.acceptedAt },
        { id: `${commandId}:resubscribe` },
      );
      await this.suppressions.resubscribed(projectId, email);
    }
  }

  /** Announces a complaint's suppression that a lift put back (as created: the lift announced its block deleted). */
  private async kept(suppression: SuppressionDoc | null, email: string): Promise<void> {
    if (suppression) await this.announce('suppression.created', suppression, email);
  }

  private async announce(type: Change, s: SuppressionDoc, email: string, deletedAt?: Date): Promise<void> {
    // The list entry names one suppression of an address; one without an entry (what outlived an
    // erasure) is named by a hash of its key, which no event id may show.
    const name = s.entry ?? createHash('sha256').update(s._id).digest('base64url').slice(0, 22);
    await this.publisher.publish(
      Topics.EmailEvents,
      type,
      `${s.projectId}:${email}`,
      {
        projectId: s.projectId,
        email,
        reason: s.reason as SuppressionReason,
        createdAt: s.at.toISOString(),
        messageId: s.messageId ?? null,
        ...(deletedAt ? { deletedAt: deletedAt.toISOString() } : {}),
      },
      { id: `suppression:${s.projectId}:${name}:${type === 'suppression.created' ? 'created' : 'deleted'}` },
    );
  }
}
