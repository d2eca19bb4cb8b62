import type { EmailTriggerCommand } from '@postbus/contracts';
import type { MessageLists } from '../model/message-list.repository';
import type { Deliverer } from './delivery/deliverer';
import { isFinished } from './message-status';
import type { MessageDoc } from './message-records';
import type { MessageStore } from '../model/message.repository';
import type { RetryQueue } from '../model/retry.repository';
import type { StatusRollups } from '../model/rollup.repository';
import type { Suppressions } from '../model/suppression.repository';
import type { Timeline } from './timeline';

export interface TriggerDeliveryDeps {
  store: MessageStore;
  suppressions: Suppressions;
  retries: RetryQueue;
  deliverer: Deliverer;
  timeline: Timeline;
  lists: MessageLists;
  rollups: StatusRollups;
}

/** The stored message a trigger starts; the other way, stored to as clients read it, is domain/message-view's messageView. */
export const messageDocFromTrigger = (t: EmailTriggerCommand): MessageDoc => ({
  _id: t.messageId,
  projectId: t.projectId,
  emailId: t.emailId,
  emailKey: t.emailKey,
  templateId: t.templateId,
  templateVersion: t.templateVersion,
  email: String(t.user['email']),
  userId: typeof t.user['user_id'] === 'string' ? t.user['user_id'] : null,
  user: t.user,
  data: t.data,
  acceptedAt: new Date(t.acceptedAt),
  createdAt: new Date(),
  ...(t.replyTo !== undefined ? { replyTo: t.replyTo } : {}),
  ...(t.headers !== undefined ? { headers: t.headers } : {}),
  ...(t.tags !== undefined ? { tags: t.tags } : {}),
  ...(t.metadata !== undefined ? { metadata: t.metadata } : {}),
  ...(t.cc !== undefined ? { cc: t.cc } : {}),
  ...(t.bcc !== undefined ? { bcc: t.bcc } : {}),
});

/**
 * Each accepted trigger becomes one email. The message is stored first (its id is the dedupe key:
 * a redelivered trigger finds it), then rendered, signed and sent, its outcome recorded as soon as
 * the relay answers. A redelivered trigger whose message
 * has an outcome only re-emits its events; one with a retry scheduled is left to the retry worker.
 */
export class TriggerDelivery {
  constructor(private readonly deps: TriggerDeliveryDeps) {}

  /** One trigger: its message stored (or found, when redelivered) and listed, then delivered unless it has an outcome already. */
  readonly one = async (message: MessageDoc): Promise<void> => {
    const { store, suppressions, retries, deliverer, timeline, lists, rollups } = this.deps;
    let attempt = 1;
    if (await store.insertOne(message)) {
      // The first delivery may have stopped before the message was listed: once per message id.
      await lists.accepted(message, 'maybe-seen');
      const events = await store.timeline(message._id);
      if (isFinished(events)) return timeline.republish(message, events);
      if (await retries.pending(message._id)) return; // the retry worker has it
      attempt = events.filter((e) => e.event === 'deferred').length + 1;
      const outcome = await deliverer.deliver(message, await suppressions.reasonFor(message));
      await timeline.recordAttempt(message, attempt, outcome);
      return;
    }
    rollups.count(message.projectId, 'queued', message.acceptedAt);
    // Listed while it is delivered (off the trigger → relay path); a failure to list fails the
    // trigger only once the outcome is stored, so the redelivery lists it and sends nothing again.
    const listed = lists.accepted(message, 'new').then(
      () => null,
      (error: unknown) => (error instanceof Error ? error : new Error(String(error))),
    );
    const outcome = await deliverer.deliver(message, await suppressions.reasonFor(message));
    await timeline.recordAttempt(message, attempt, outcome);
    const failed = await listed;
    if (failed) throw failed;
  };
  // Side by side; the stores group what concurrent triggers (of every partition) write and read.
  // Every trigger runs to its end, and only those that failed are left to the consumer to retry
  // alone (and dead-letter): one poisoned trigger does not fail, nor resend, the others.
  readonly run = async (triggers: EmailTriggerCommand[]): Promise<number[]> => {
    const byId = new Map<string, Promise<void>>();
    for (const t of triggers) if (!byId.has(t.messageId)) byId.set(t.messageId, this.one(messageDocFromTrigger(t)));
    const outcomes = await Promise.allSettled(triggers.map((t) => byId.get(t.messageId)!));
    return outcomes.flatMap((o, i) => (o.status === 'rejected' ? [i] : []));
  };
}
