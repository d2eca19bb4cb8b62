import { every, RUN_AGAIN_NOW, type Repeating } from '@postbus/http/every';
import type { Logger } from '@postbus/logger';
import type { Deliverer } from './delivery/deliverer';
import { simulateFeedback } from './delivery/simulated-relay';
import { isFinished } from './message-status';
import type { MessageRecords } from './ports/messages';
import type { RetrySchedule } from './ports/schedules';
import type { SuppressionLookup } from './ports/suppressions';
import type { Timeline } from './timeline';

export interface RetryWorkerDeps {
  retries: RetrySchedule;
  store: MessageRecords;
  suppressions: SuppressionLookup;
  deliverer: Deliverer;
  timeline: Timeline;
  logger: Logger;
  intervalMs: number;
}

const CLAIM_BATCH = 100;
const LEASE_MS = 120_000;
/** Wake-ups closer than this share one run; past MAX_WAKE_UPS pending, the poll finds the rest. */
export const WAKE_GRAIN_MS = 25;
const MAX_WAKE_UPS = 256;

/**
 * Takes deferred messages whose next attempt is due and tries them again. It runs when an attempt
 * this instance scheduled falls due (wakeAt), and polls for the others (another instance's, or one
 * whose claimer died) every intervalMs: an idle mailer then reads the queue once a poll, however
 * short its retries are.
 */
export class RetryWorker {
  private loop: Repeating | undefined;
  private readonly wakeUps = new Map<number, NodeJS.Timeout>();

  constructor(private readonly deps: RetryWorkerDeps) {}

  start(): void {
    this.loop = every(this.deps.intervalMs, () => this.runDue(), {
      pace: 'rest-between-runs',
      onError: (error) => this.deps.logger.warn('retrying deferred messages failed', { error }),
    });
  }

  async stop(): Promise<void> {
    for (const timer of this.wakeUps.values()) clearTimeout(timer);
    this.wakeUps.clear();
    await this.loop?.stop();
  }

  /** Runs once `dueAt` has passed (an attempt this instance just scheduled). */
  wakeAt(dueAt: Date): void {
    const at = Math.ceil(dueAt.getTime() / WAKE_GRAIN_MS) * WAKE_GRAIN_MS;
    if (!this.loop || this.wakeUps.has(at) || this.wakeUps.size >= MAX_WAKE_UPS) return;
    const timer = setTimeout(() => {
      this.wakeUps.delete(at);
      this.loop?.runSoon();
    }, at - Date.now());
    timer.unref();
    this.wakeUps.set(at, timer);
  }

  /**
   * One poll: the attempts due now, claimed and made (what each run of `start`'s loop does). A
   * full batch may have left more due behind it: the loop then polls again at once.
   */
  async runDue(): Promise<typeof RUN_AGAIN_NOW | undefined> {
    const { retries, store, suppressions, deliverer, timeline } = this.deps;
    const due = await retries.claimDue(CLAIM_BATCH, LEASE_MS);
    if (due.length === 0) return undefined;
    const ids = due.map((d) => d.messageId);
    const [messages, timelines] = await Promise.all([store.messagesById(ids), store.timelines(ids)]);
    const found = [...messages.values()];
    const reasons = new Map((await suppressions.reasons(found)).map((reason, i) => [found[i]!._id, reason]));
    await Promise.all(
      due.map(async ({ messageId, attempt }) => {
        const message = messages.get(messageId);
        if (!message || isFinished(timelines.get(messageId) ?? [])) return retries.done(messageId);
        const outcome = await deliverer.deliver(message, reasons.get(messageId), attempt, timelines.get(messageId) ?? []);
        const recorded = await timeline.recordAttempt(message, attempt, outcome);
        await simulateFeedback(message, recorded, timelines.get(messageId) ?? [], timeline);
        if (recorded.event !== 'deferred') await retries.done(messageId);
      }),
    );
    return due.length === CLAIM_BATCH ? RUN_AGAIN_NOW : undefined;
  }
}
