import { every, type Teardown } from '@postbus/http';
import type { Logger } from '@postbus/logger';
import type { Domain } from './consumers';

const SWEEP_INTERVAL_MS = 1000;

/** Sweeps the parked commands: applies those whose user has come, rejects those that waited long enough. */
export function startBackgroundWork(logger: Logger, { commands }: Domain, teardown: Teardown): void {
  // One sweep at a time: the next is scheduled when the last one has finished.
  const sweep = every(SWEEP_INTERVAL_MS, () => commands.sweepParked(), {
    pace: 'rest-between-runs',
    onError: (error) => logger.warn('sweep of parked commands failed', { error }),
  });
  teardown.add(() => sweep.stop());
}
