import type { Teardown } from '@postbus/http';
import type { Logger } from '@postbus/logger';
import type { MailerConfig } from '../config';
import { MessageRetention } from '../domain/message-retention';
import { RetryWorker } from '../domain/retry-worker';
import type { MailerDomain } from './consumers';
import type { Stores } from './stores';

/**
 * How often the retry worker looks for due attempts it was not woken for: another instance's, or
 * one whose claimer died (the attempts this instance schedules wake it when they fall due).
 */
const RETRY_POLL_MS = 1_000;

/**
 * Starts the retention purge and the retry worker. They, and the schedule worker startConsumers
 * started, stop first, before the server closes: the retry worker, then the schedule worker, then
 * the retention.
 */
export function startBackgroundWork(
  config: Pick<MailerConfig, 'MESSAGE_RETENTION_DAYS' | 'MESSAGE_RETENTION_INTERVAL_MS'>,
  logger: Logger,
  { store, lists, attachments, schedule, retries, suppressions }: Stores,
  { deliverer, timeline, scheduleWorker }: Pick<MailerDomain, 'deliverer' | 'timeline' | 'scheduleWorker'>,
  teardown: Teardown,
): void {
  const retention = new MessageRetention({
    store,
    lists,
    attachments,
    schedule,
    logger,
    retentionDays: config.MESSAGE_RETENTION_DAYS,
    intervalMs: config.MESSAGE_RETENTION_INTERVAL_MS,
  });
  retention.start();
  teardown.add(() => retention.stop());
  // Started before the consumers (see startConsumers), stopped here, between the retention and the retry worker.
  teardown.add(() => scheduleWorker.stop());
  const retryWorker = new RetryWorker({
    retries,
    store,
    suppressions,
    deliverer,
    timeline,
    logger,
    intervalMs: RETRY_POLL_MS,
  });
  retries.onScheduled((dueAt) => retryWorker.wakeAt(dueAt));
  retryWorker.start();
  teardown.add(() => retryWorker.stop());
}
