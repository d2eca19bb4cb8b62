import type { Teardown } from '@postbus/http';
import { every } from '@postbus/http/every';
import type { Logger } from '@postbus/logger';
import type { InboundConfig } from '../config';
import type { Stores } from './stores';

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

/** The hourly purge of the received-mail records past INBOUND_RECORD_RETENTION_DAYS. */
export function startBackgroundWork(config: InboundConfig, logger: Logger, { received }: Stores, teardown: Teardown): void {
  const retention = every(HOUR_MS, () => received.purgeBefore(new Date(Date.now() - config.INBOUND_RECORD_RETENTION_DAYS * DAY_MS)), {
    pace: 'rest-between-runs',
    firstRunAfterMs: 60_000,
    onError: (error) => logger.warn('purging old received-mail records failed', { error }),
  });
  teardown.add(() => retention.stop());
}
