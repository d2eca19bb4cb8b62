import type { Message } from '@postbus/contracts';
import { every, RUN_AGAIN_NOW, type Repeating } from '@postbus/http/every';
import type { Logger } from '@postbus/logger';
import { isFinished } from './message-status';
import type { MessageDoc } from './message-records';
import { messageView } from './message-view';
import type { MessageListing, MessageRecords, StatusCounter } from './ports/messages';
import type { ScheduleDecision, WaitingSends } from './ports/schedules';
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
  | 'not-scheduled';

/**
 * Sends with a send_at: stored `scheduled` and waiting in the schedule queue until a worker takes
 * them (ScheduleWorker), or cancelled before. Whether a message is sent or cancelled is decided
 * once, by whoever inserts its decision first (ScheduleQueue.decide), so a cancel racing a worker
 * either stops the send or is refused.
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
      if ((await queue.decide(messageId, 'cancel')).decision === 'send') return 'too-late';
    }
    if ((await timeline.recordCanceled(message)) === 'taken') return 'too-late';
    await queue.done(messageId);
    return { canceled: messageView(message, await store.timeline(messageId)) };
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
  decided: Map<string, ScheduleDecision>;
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
        if (message) {
          if (decided.get(id) === 'cancel') await timeline.recordCanceled(message);
          else await deliver(message);
        }
        // Gone (erased): nothing is to be sent.
        await queue.done(id);
      }),
    );
  }
}
