import { every, type Teardown } from '@postbus/http';
import type { Logger } from '@postbus/logger';
import type { Consumers } from './consumers';
import type { Stores } from './stores';

/** Answers to an Idempotency-Key are replayed this long; the purge removes older records. */
export const IDEMPOTENCY_RETENTION_MS = 24 * 60 * 60 * 1000;
const IDEMPOTENCY_PURGE_INTERVAL_MS = 10 * 60 * 1000;

/**
 * The gateway's timers: the catalog's resync, the counters' sharing, the idempotency purge. Started
 * after the servers, so that they stop before the servers close, in this order: the purge, the
 * counters' sharing, the catalog's resync.
 */
export function startBackgroundWork(
  logger: Logger,
  { idempotency }: Stores,
  { catalogFeed, counters }: Consumers,
  teardown: Teardown,
): void {
  // The feed started in startConsumers (its first republish precedes the listen); only its timers stop here.
  teardown.add(() => catalogFeed.stop());
  // Requests are counted from the first; their sharing with the other instances starts here.
  counters.start();
  teardown.add(() => counters.stop());
  const idempotencyPurge = every(
    IDEMPOTENCY_PURGE_INTERVAL_MS,
    () => idempotency.purgeOlderThan(new Date(Date.now() - IDEMPOTENCY_RETENTION_MS)),
    { onError: (error) => logger.warn('purging idempotency records failed', { error }) },
  );
  teardown.add(() => idempotencyPurge.stop());
}
