import type { EmailTriggerCommand, MessageStatus } from '@postbus/contracts';
import type { Deliverer } from './delivery/deliverer';
import { simulateFeedback } from './delivery/simulated-relay';
import { isFinished } from './message-status';
import type { EventDoc, MessageDoc } from './message-records';
import type { MessageListing, MessageRecords, StatusCounter } from './ports/messages';
import type { RetrySchedule } from './ports/schedules';
import type { SuppressionLookup } from './ports/suppressions';
import type { ScheduledSends } from './scheduled-sends';
import type { Timeline } from './timeline';

export interface TriggerDeliveryDeps {
  store: MessageRecords;
  suppressions: Pick<SuppressionLookup, 'reasonFor'>;
  retries: Pick<RetrySchedule, 'pending'>;
  deliverer: Deliverer;
  timeline: Timeline;
  lists: MessageListing;
  rollups: StatusCounter;
  scheduled: ScheduledSends;
}

/**
 * What a delivery event changes once it is first stored (Timeline's onStored): the status rollups
 * and the status lists. A message counts (and is listed) under a status once: deferred on its
 * first deferral only. A test message is simulated: it counts in no stats.
 */
export const statusReached =
  (rollups: StatusCounter, lists: Pick<MessageListing, 'reached'>) =>
  async (message: MessageDoc, event: EventDoc): Promise<void> => {
    if (event.event === 'deferred' && event.attempt !== 1) return;
    const status = event.event as MessageStatus;
    if (!message.test) rollups.count(message.projectId, status, event.at);
    await lists.reached(message, status, event.at);
  };

/** The stored message a trigger starts; the other way, stored to as clients read it, is domain/message-view's messageView. */
export const messageDocFromTrigger = (t: EmailTriggerCommand): MessageDoc => ({
  _id: t.messageId,
  projectId: t.projectId,
  ...(t.content !== undefined
    ? { content: t.content }
    : {
        emailId: t.emailId,
        emailKey: t.emailKey,
        templateId: t.templateId,
        templateVersion: t.templateVersion,
        ...(t.templateRevision !== undefined ? { templateRevision: t.templateRevision } : {}),
        ...(t.language !== undefined ? { language: t.language } : {}),
      }),
  ...(t.source !== undefined ? { source: t.source } : {}),
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
  ...(t.attachments !== undefined ? { attachments: t.attachments } : {}),
  ...(t.sendAt !== undefined ? { sendAt: new Date(t.sendAt) } : {}),
  ...(t.test ? { test: true as const } : {}),
  ...(t.to !== undefined ? { to: t.to } : {}),
  ...(t.cc !== undefined ? { cc: t.cc } : {}),
  ...(t.bcc !== undefined ? { bcc: t.bcc } : {}),
});

/**
 * Each accepted trigger becomes one email. The message is stored first (its id is the dedupe key:
 * a redelivered trigger finds it), then rendered, signed and sent, its outcome recorded as soon as
 * the relay answers. A redelivered trigger whose message
 * has an outcome only re-emits its events; one with a retry scheduled is left to the retry worker.
 * A scheduled send (send_at) is stored and left to wait for its time (see ScheduledSends).
 */
export class TriggerDelivery {
  constructor(private readonly deps: TriggerDeliveryDeps) {}

  /** One trigger: its message stored (or found, when redelivered) and listed, then delivered unless it has an outcome already. */
  readonly one = async (message: MessageDoc): Promise<void> => {
    const { store, suppressions, deliverer, timeline, lists, rollups, scheduled } = this.deps;
    const known = await store.insertOne(message);
    if (message.sendAt) return scheduled.accept(message, known ? 'maybe-seen' : 'new');
    if (known) {
      // The first delivery may have stopped before the message was listed: once per message id.
      await lists.accepted(message, 'maybe-seen');
      return this.resume(message);
    }
    if (!message.test) rollups.count(message.projectId, 'queued', message.acceptedAt);
    // Listed while it is delivered (off the trigger → relay path); a failure to list fails the
    // trigger only once the outcome is stored, so the redelivery lists it and sends nothing again.
    const listed = lists.accepted(message, 'new').then(
      () => null,
      (error: unknown) => (error instanceof Error ? error : new Error(String(error))),
    );
    const outcome = await deliverer.deliver(message, await suppressions.reasonFor(message), 1);
    await simulateFeedback(message, await timeline.recordAttempt(message, 1, outcome), [], timeline);
    const failed = await listed;
    if (failed) throw failed;
  };

  /**
   * Delivers a stored message unless it has an outcome already (whose events are emitted again) or
   * a retry scheduled (left to the retry worker): a redelivered trigger, or a scheduled message at its time.
   */
  readonly resume = async (message: MessageDoc): Promise<void> => {
    const { store, suppressions, retries, deliverer, timeline } = this.deps;
    const events = await store.timeline(message._id);
    if (isFinished(events)) {
      await timeline.republish(message, events);
      // A test message's simulated complaint may not have been recorded before the first delivery stopped.
      const last = events.filter((e) => e.attempt !== undefined).pop();
      if (last) await simulateFeedback(message, last, events, timeline);
      return;
    }
    if (await retries.pending(message._id)) return; // the retry worker has it
    const attempt = events.filter((e) => e.event === 'deferred').length + 1;
    const outcome = await deliverer.deliver(message, await suppressions.reasonFor(message), attempt, events);
    await simulateFeedback(message, await timeline.recordAttempt(message, attempt, outcome), events, timeline);
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
