import { every, type Teardown } from '@postbus/http';
import type { Logger } from '@postbus/logger';
import type { DispatcherConfig } from '../config';
import { DeliveryRetention } from '../domain/delivery-retention';
import type { Consumers } from './consumers';
import type { Stores } from './stores';

/**
 * The retention loop, then the worker's poll of the due queue. The worker starts last so that it
 * stops first: the stop waits for its attempts in flight while the loop, the server, the bus and
 * the database are still there for them.
 */
export function startBackgroundWork(
  config: DispatcherConfig,
  logger: Logger,
  { deliveries, runs }: Stores,
  { worker }: Consumers,
  teardown: Teardown,
): void {
  const retention = new DeliveryRetention({
    deliveries,
    runs,
    logger,
    retentionDays: config.WEBHOOK_DELIVERY_RETENTION_DAYS,
    intervalMs: config.WEBHOOK_RETENTION_INTERVAL_MS,
  });
  const retentionLoop = every(config.WEBHOOK_RETENTION_INTERVAL_MS, () => retention.runOnce(), {
    onError: (error) => logger.warn('purging old webhook deliveries failed; the next run goes on', { error }),
  });
  teardown.add(() => retentionLoop.stop());
  worker.start();
  teardown.add(() => worker.stop());
}
