import { every, RUN_AGAIN_NOW, type Repeating } from '@postbus/http/every';
import type { Logger } from '@postbus/logger';
import type { Deliverer } from './delivery/deliverer';
import { simulateFeedback } from './delivery/simulated-relay';
import { isFinished } from './message-status';
import type { MessageStore } from '../model/message.repository';
import type { RetryQueue } from '../model/retry.repository';
import type { Suppressions } from '../model/suppression.repository';
import type { Timeline } from './timeline';

export interface RetryWorkerDeps {
  retries: RetryQueue;
  store: MessageStore;
  suppressions: Suppressions;
  deliverer: Deliverer;
  timeline: Timeline;
  logger: Logger;
  intervalMs: number;
}

const CLAIM_BATCH = 100;
const LEASE_MS = 120_000;

/** Takes deferred messages whose next attempt is due and tries them again, one poll at a time. */
export class RetryWorker {
  private loop: Repeating | undefined;

  constructor(private readonly deps: RetryWorkerDeps) {}

  start(): void {
    this.loop = every(this.deps.intervalMs, () => this.runDue(), {
      pace: 'rest-between-runs',
      onError: (error) => this.deps.logger.warn('retrying deferred messages failed', { error }),
    });
  }

  async stop(): Promise<void> {
    await this.loop?.stop();
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
