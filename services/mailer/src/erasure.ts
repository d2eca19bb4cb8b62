import type { ErasureExecuteCommand, UserErasureScheduledEvent } from '@postbus/contracts';
import type { ErasuresDone } from './model/erasures';
import type { MessageStore } from './model/messages';
import type { RetryQueue } from './model/retries';
import type { Suppressions } from './model/suppressions';

export interface ErasureDeps {
  store: MessageStore;
  suppressions: Suppressions;
  retries: RetryQueue;
  done: ErasuresDone;
}

/**
 * The mailer's part in a GDPR erasure (DESIGN §5): from the request on the person gets no mail;
 * when it is due, their messages, timelines, scheduled retries and suppressions go.
 */
export class MailerErasure {
  constructor(private readonly deps: ErasureDeps) {}

  /**
   * Suppresses the person by address and by user id until the erasure is carried out: told first by
   * the gateway (email.erasure_requested, in order with the person's triggers), then by the erasure
   * service's announcement, which may name an address the gateway did not know.
   */
  readonly suppress = async (
    event: Pick<UserErasureScheduledEvent, 'erasureId' | 'projectId' | 'email' | 'userId' | 'requestedAt'>,
  ): Promise<void> => {
    const { suppressions, done } = this.deps;
    const target = { projectId: event.projectId, email: event.email, userId: event.userId };
    await suppressions.addErasure(target, new Date(event.requestedAt));
    // Checked after the insert, while `erase` records before it deletes: whichever runs second
    // sees the other, so a late schedule never leaves a suppression behind the erasure.
    if (await done.has(event.erasureId)) await suppressions.removeErasure(target);
  };

  /** Deletes what the mailer holds about the person; idempotent (a repeat finds nothing left). */
  readonly erase = async (subject: ErasureExecuteCommand): Promise<Record<string, number>> => {
    const { store, suppressions, retries, done } = this.deps;
    const { projectId, email, userId } = subject;
    await done.record(subject.erasureId, projectId, new Date());
    // Triggers accepted after the erasure ran are for someone new with the same address.
    const before = new Date(subject.before);
    const messages = await store.addressedTo(projectId, email, userId, before);
    const ids = messages.map((m) => m._id);
    // Retries first, so the worker claims nothing about to vanish.
    await retries.cancel(ids);
    const deleted = await store.delete(ids);
    // The addresses the user's messages went to are theirs too, and so are their suppressions;
    // both kinds go, so that a later trigger for the address reaches whoever has it now.
    const emails = [...new Set([...(email !== null ? [email] : []), ...messages.map((m) => m.email)])];
    const removed = await suppressions.removeAll(projectId, emails, userId, before);
    return { ...deleted, suppressions: removed };
  };
}
