import { every, type Repeating } from '@postbus/http';
import type { Logger } from '@postbus/logger';
import type { DeliveryStore } from '../model/delivery.repository';
import type { RetentionRuns } from '../model/retention-run.repository';

export interface RetentionOptions {
  deliveries: DeliveryStore;
  runs: RetentionRuns;
  logger: Logger;
  retentionDays: number;
  intervalMs: number;
}

/**
 * Webhook delivery retention: every interval one instance (the one whose claim of that interval
 * is inserted first) deletes the deliveries older than the retention, in resumable chunks of
 * point deletes through the endpoints' lists. An instance that dies midway leaves the lists'
 * tails where it stopped; the next interval's run goes on from there.
 */
export class DeliveryRetention {
  private loop: Repeating | undefined;

  constructor(private readonly options: RetentionOptions) {}

  start(): void {
    this.loop = every(this.options.intervalMs, () => this.runOnce(), {
      onError: (error) => this.options.logger.warn('purging old webhook deliveries failed; the next run goes on', { error }),
    });
  }

  async stop(): Promise<void> {
    await this.loop?.stop();
  }

  /** Purges when no other instance has this interval; returns what went, or undefined when another instance has it. */
  async runOnce(now = new Date()): Promise<{ deliveries: number; attempts: number } | undefined> {
    const slot = Math.floor(now.getTime() / this.options.intervalMs);
    if (!(await this.options.runs.claim(slot, now))) return undefined;
    // The collection stays at two claims: the one before the previous is no longer contended.
    await this.options.runs.forget(slot - 2);
    const cutoff = new Date(now.getTime() - this.options.retentionDays * 86_400_000);
    const purged = await this.options.deliveries.purgeOlderThan(cutoff);
    if (purged.deliveries > 0) this.options.logger.info('purged old webhook deliveries', { ...purged, cutoff: cutoff.toISOString() });
    return purged;
  }
}
