import cron from 'node-cron';
import type { Teardown } from '@postbus/http';
import type { Logger } from '@postbus/logger';
import type { ErasureConfig } from '../config';
import type { Consumers } from './consumers';

/**
 * The job that sends the due erasures, and a pass at start-up: erasures that fell due while no
 * instance ran go at once. It is the last step so that it stops first: its run under way still
 * has the bus and the database.
 */
export async function startBackgroundWork(
  config: ErasureConfig,
  logger: Logger,
  { erasures }: Consumers,
  teardown: Teardown,
): Promise<void> {
  let running: Promise<void> = Promise.resolve();
  const runDue = () => {
    running = erasures.runDue().then(
      () => undefined,
      (error: unknown) => {
        logger.warn('due erasures not sent; the next run tries again', { error });
      },
    );
    return running;
  };
  const job = cron.schedule(config.ERASURE_SCHEDULE, runDue, { name: 'due-erasures', noOverlap: true });
  teardown.add(async () => {
    await job.stop();
    await running;
  });
  await runDue();
}
