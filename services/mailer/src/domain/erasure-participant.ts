import type { ErasureExecuteCommand, UserErasureScheduledEvent } from '@postbus/contracts';
import { entriesWithoutCopy, withoutCopy } from './copy-erasure';
import { listNames, listOwner } from './message-lists';
import { summaryOf } from './message-view';
import type { ErasuresCarriedOut, ErasureSuppressions } from './ports/erasures';
import type { MessageAttachments, MessageListing, MessageRecords } from './ports/messages';
import type { RetrySchedule, WaitingSends } from './ports/schedules';

export interface ErasureDeps {
  store: MessageRecords;
  lists: MessageListing;
  suppressions: ErasureSuppressions;
  retries: Pick<RetrySchedule, 'cancel'>;
  schedule: Pick<WaitingSends, 'forget'>;
  done: ErasuresCarriedOut;
  attachments: Pick<MessageAttachments, 'deleteSets'>;
}

/**
 * The mailer's part in a GDPR erasure (docs/architecture.md#erasure): from the request on the person gets no mail;
 * when it is due, their messages, timelines, attachments, scheduled retries and sends (waits and
 * decisions) and suppressions go, and their address is redacted in the other messages of the
 * project it was copied on.
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

  /**
   * Deletes what the mailer holds about the person: the messages of their recipient list and of
   * their user id's list, chunk by chunk in point deletes (each chunk's list entries go last, so
   * an interrupted erasure resumes where it stopped); idempotent (a repeat finds nothing left).
   */
  readonly erase = async (subject: ErasureExecuteCommand): Promise<Record<string, number>> => {
    const { store, lists, suppressions, retries, schedule, done, attachments } = this.deps;
    const { projectId, email, userId } = subject;
    await done.record(subject.erasureId, projectId, new Date());
    // Triggers accepted after the erasure ran are for someone new with the same address.
    const before = new Date(subject.before);
    const cutoff = new Date(before.getTime() + 1);
    const emails = new Set(email !== null ? [email] : []);
    const deleted = { messages: 0, events: 0, attachmentChunks: 0, copiesRedacted: 0 };
    const eraseChunk = async (ids: string[]): Promise<void> => {
      const messages = [...(await store.messagesById(ids)).values()].filter((m) => m.projectId === projectId && m.acceptedAt <= before);
      // The addresses the user's messages went to are theirs too: their suppressions go below.
      for (const m of messages) emails.add(m.email);
      const mine = messages.map((m) => m._id);
      // Retries first, so the worker claims nothing about to vanish.
      await retries.cancel(mine);
      // Likewise the scheduled sends' waits, with their decisions: before the messages, whose send_at names them.
      await schedule.forget(messages.filter((m) => m.sendAt).map((m) => m._id));
      // Before the messages, which name them: a repeat finds the attachments of a message still there.
      deleted.attachmentChunks += await attachments.deleteSets(
        projectId,
        messages.filter((m) => (m.attachments?.length ?? 0) > 0).map((m) => m._id),
      );
      const counts = await store.delete(mine);
      await lists.forget(mine);
      deleted.messages += counts.messages;
      deleted.events += counts.events;
    };
    // The person's test messages (a test key's sends to their address) go too.
    for (const owner of [projectId, listOwner(projectId, true)]) {
      if (email !== null) await lists.trim(listNames.recipient(owner, email), cutoff, eraseChunk);
      if (userId !== null) await lists.trim(listNames.user(owner, userId), cutoff, eraseChunk);
    }
    // Every address of the person, as a copy on others' messages (listed by address when they were
    // accepted): redacted in each message, its timeline and its summary, the message last, so an
    // interrupted erasure finds it again; the list's entries go after each chunk.
    for (const owner of [projectId, listOwner(projectId, true)])
      for (const address of emails)
        await lists.trim(listNames.copy(owner, address), cutoff, async (ids) => {
          const messages = [...(await store.messagesById(ids)).values()].filter((m) => m.projectId === projectId && m.acceptedAt <= before);
          for (const message of messages) {
            const redacted = withoutCopy(message, address);
            if (!redacted) continue;
            const timeline = await store.timeline(message._id);
            const entries = entriesWithoutCopy(timeline, address);
            await store.rewriteEvents(entries);
            if (await store.hasSummary(message._id)) {
              const rewritten = new Map(entries.map((e) => [e._id, e]));
              await store.replaceSummary(
                summaryOf(
                  redacted,
                  timeline.map((e) => rewritten.get(e._id) ?? e),
                ),
              );
            }
            await store.rewriteMessages([redacted]);
            deleted.copiesRedacted++;
          }
        });
    // Both kinds of suppression go, so that a later trigger for the address reaches whoever has it now.
    const removed = await suppressions.removeAll(projectId, [...emails], userId, before);
    return { ...deleted, suppressions: removed };
  };
}
