import type { Message } from '@postbus/contracts';
import { every, RUN_AGAIN_NOW, type Repeating } from '@postbus/http/every';
import type { Logger } from '@postbus/logger';
import { isFinished } from './message-status';
import type { MessageDoc } from './message-records';
import { messageView } from './message-view';
import type { MessageListing, MessageRecords, StatusCounter } from './ports/messages';
import type { StandingDecision, WaitingSends } from './ports/schedules';
import type { Timeline } from './timeline';

export interface ScheduledSendsDeps {
  store: MessageRecords;
  queue: WaitingSends;
  lists: MessageListing;
  rollups: StatusCounter;
  timeline: Timeline;
}

/** What a cancel came to: the message, now canceled; or why not. */
export type CancelOutcome =
  | { canceled: Message }
  | 'not-found'
  /** Sent, being sent (a worker decided to send it), or ended otherwise. */
  | 'too-late'
  /** A send without send_at: it was never waiting. */
  | 'not-scheduled'
  /** Its time is being changed at this moment: a retry gets the answer. */
  | 'busy';

/** What a change of a scheduled message's time came to: the message, with its new send_at; or why not. */
export type RescheduleOutcome =
  | { rescheduled: Message }
  | 'not-found'
  /** Sent, being sent, or due so soon that a worker may be taking it (RESCHEDULE_MARGIN_MS). */
  | 'too-late'
  | 'canceled'
  | 'not-scheduled'
  /** Another change of its time, or a cancel, is under way: a retry gets the answer. */
  | 'busy';

/**
 * How far ahead a message's time must still be for it to move: a worker takes a message once its
 * time has come, so one due later than this is waiting, whatever the instances' clocks say.
 */
export const RESCHEDULE_MARGIN_MS = 5_000;

/**
 * Sends with a send_at: stored `scheduled` and waiting in the schedule queue until a worker takes
 * them (ScheduleWorker), or cancelled or moved to another time before. Whether a message is sent
 * or cancelled is decided once, by whoever inserts its decision first (ScheduleQueue.decide), so
 * a cancel racing a worker either stops the send or is refused; a change of its time holds the
 * message (a hold inserted the same way) while it moves it, so neither can come between.
 */
export class ScheduledSends {
  constructor(private readonly deps: ScheduledSendsDeps) {}

  /** A scheduled trigger's message, stored already: counted, listed, waiting for its time and announced (`message.scheduled`). */
  async accept(message: MessageDoc, known: 'new' | 'maybe-seen'): Promise<void> {
    const { store, queue, lists, rollups, timeline } = this.deps;
    if (known === 'new') {
      // Counted queued too: the rollups' queued is every message accepted.
      rollups.count(message.projectId, 'queued', message.acceptedAt);
      rollups.count(message.projectId, 'scheduled', message.acceptedAt);
    } else {
      // A redelivered trigger: one whose message has gone (or was cancelled) re-emits what happened; one being sent is the worker's.
      const events = await store.timeline(message._id);
      if (isFinished(events)) return timeline.republish(message, events);
      if (events.length > 0) return;
    }
    await lists.accepted(message, known);
    await lists.reached(message, 'scheduled', message.acceptedAt);
    await queue.schedule(message._id, message.sendAt ?? message.acceptedAt);
    await timeline.announceScheduled(message);
  }

  /** Cancels a scheduled message of the project that has not started going; a repeat answers the same. */
  async cancel(projectId: string, messageId: string): Promise<CancelOutcome> {
    const { store, queue, timeline } = this.deps;
    const message = await store.message(projectId, messageId);
    if (!message) return 'not-found';
    if (!message.sendAt) return 'not-scheduled';
    const events = await store.timeline(messageId);
    if (!events.some((e) => e.event === 'canceled')) {
      if (events.length > 0) return 'too-late';
      // A previous cancel may have decided and stopped before recording it: its decision stands and is finished here.
      const standing = (await queue.decide(messageId, 'cancel')).decision;
      if (standing === 'send') return 'too-late';
      if (standing === 'hold') return 'busy';
    }
    if ((await timeline.recordCanceled(message)) === 'taken') return 'too-late';
    await queue.done(messageId);
    return { canceled: messageView(message, await store.timeline(messageId)) };
  }

  /**
   * Moves a scheduled message that is still waiting to `sendAt` (the caller has checked it is
   * within the limits a send_at has); a repeat answers the same. The message is held meanwhile,
   * and its wait is moved before its record, so a change that stops half-way sends it at the new
   * time, never at the old one. Another instance's reads may show the old send_at while its message cache holds it (seconds).
   */
  async reschedule(projectId: string, messageId: string, sendAt: Date, now = new Date()): Promise<RescheduleOutcome> {
    const { store, queue } = this.deps;
    const message = await store.message(projectId, messageId);
    if (!message) return 'not-found';
    if (!message.sendAt) return 'not-scheduled';
    const events = await store.timeline(messageId);
    if (events.some((e) => e.event === 'canceled')) return 'canceled';
    if (events.length > 0 || message.sendAt.getTime() <= now.getTime() + RESCHEDULE_MARGIN_MS) return 'too-late';
    const held = await queue.decide(messageId, 'hold');
    if (!held.fresh) return held.decision === 'cancel' ? 'canceled' : held.decision === 'send' ? 'too-late' : 'busy';
    const moved = { ...message, sendAt };
    try {
      await queue.move(messageId, sendAt);
      await store.rewriteMessages([moved]);
    } finally {
      await queue.release(messageId, held.at);
    }
    return { rescheduled: messageView(moved, events) };
  }
}

export interface ScheduleWorkerDeps {
  queue: WaitingSends;
  store: MessageRecords;
  timeline: Timeline;
  /** Delivers a stored message as a trigger would (suppression check, render, send, record), unless it has gone already. */
  deliver: (message: MessageDoc) => Promise<void>;
  logger: Logger;
  intervalMs: number;
  /** How long a claim holds: a message whose claimer died is taken again after it. */
  leaseMs: number;
}

const CLAIM_BATCH = 100;
/** Batches a worker's loop sends side by side: the next is claimed while the previous ones are still being sent. */
const BATCHES_IN_FLIGHT = 3;

interface ClaimedBatch {
  ids: string[];
  messages: Map<string, MessageDoc>;
  decided: Map<string, StandingDecision>;
}

/** Takes scheduled messages whose time has come and sends them (or finishes a cancel that stopped half-way), one poll at a time. */
export class ScheduleWorker {
  private loop: Repeating | undefined;
  private readonly sending = new Set<Promise<void>>();

  constructor(private readonly deps: ScheduleWorkerDeps) {}

  start(): void {
    this.loop = every(this.deps.intervalMs, () => this.handOverDue(), {
      pace: 'rest-between-runs',
      onError: (error) => this.deps.logger.warn('sending scheduled messages failed', { error }),
    });
  }

  async stop(): Promise<void> {
    await this.loop?.stop();
    await Promise.all([...this.sending]);
  }

  /**
   * One poll: the messages due now, claimed, decided and sent. A full batch may have left more due
   * behind it: the caller may poll again at once.
   */
  async runDue(): Promise<typeof RUN_AGAIN_NOW | undefined> {
    const batch = await this.claimBatch();
    if (!batch) return undefined;
    await this.send(batch);
    return batch.ids.length === CLAIM_BATCH ? RUN_AGAIN_NOW : undefined;
  }

  /**
   * What each run of `start`'s loop does: runDue, without waiting for the batch to be sent before
   * the next poll (a burst due in one second would otherwise wait for each batch's sends and
   * records in turn), up to BATCHES_IN_FLIGHT batches at once.
   */
  private async handOverDue(): Promise<typeof RUN_AGAIN_NOW | undefined> {
    while (this.sending.size >= BATCHES_IN_FLIGHT) await Promise.race(this.sending);
    const batch = await this.claimBatch();
    if (!batch) return undefined;
    const sending: Promise<void> = this.send(batch)
      .catch((error: unknown) => void this.deps.logger.warn('sending scheduled messages failed', { error }))
      .finally(() => this.sending.delete(sending));
    this.sending.add(sending);
    return batch.ids.length === CLAIM_BATCH ? RUN_AGAIN_NOW : undefined;
  }

  private async claimBatch(): Promise<ClaimedBatch | undefined> {
    const { queue, store, leaseMs } = this.deps;
    const ids = await queue.claimDue(CLAIM_BATCH, leaseMs);
    if (ids.length === 0) return undefined;
    const messages = await store.messagesById(ids);
    const found = ids.filter((id) => messages.has(id));
    // A decision made before (by a claimer that died, or a cancel) stands; `send` again resumes the delivery.
    const decisions = await queue.decideMany(found, 'send');
    return { ids, messages, decided: new Map(found.map((id, i) => [id, decisions[i]!.decision])) };
  }

  private async send({ ids, messages, decided }: ClaimedBatch): Promise<void> {
    const { queue, timeline, deliver } = this.deps;
    await Promise.all(
      ids.map(async (id) => {
        const message = messages.get(id);
        const decision = decided.get(id);
        // Held: its time is being changed, and the change moves its wait; the claim lapses meanwhile.
        if (decision === 'hold') return;
        if (message) {
          if (decision === 'cancel') await timeline.recordCanceled(message);
          else await deliver(message);
        }
        // Gone (erased): nothing is to be sent.
        await queue.done(id);
      }),
    );
  }
}
