import type { Logger } from '@postbus/logger';
import type { DeliveriesDeleted, DeliveryLog, RetentionClaims } from './ports';

export interface RetentionOptions {
  deliveries: Pick<DeliveryLog, 'purgeOlderThan'>;
  runs: RetentionClaims;
  logger: Logger;
  retentionDays: number;
  intervalMs: number;
}

/**
 * Webhook delivery retention: every interval one instance (the one whose claim of that interval
 * is inserted first) deletes the deliveries older than the retention, in resumable chunks of
 * point deletes through the endpoints' lists. An instance that dies midway leaves the lists'
 * tails where it stopped; the next interval's run goes on from there. The timer that calls
 * runOnce every interval is set in start/background.ts.
 */
export class DeliveryRetention {
  constructor(private readonly options: RetentionOptions) {}

  /** Purges when no other instance has this interval; returns what went, or undefined when another instance has it. */
  async runOnce(now = new Date()): Promise<DeliveriesDeleted | undefined> {
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
