import { setTimeout as sleep } from 'node:timers/promises';
import { ConflictError } from '@postbus/errors';
import { lastOf, statusOf } from './delivery-status';
import type { DeliveryLog, DueAttempts } from './ports';
import type { DeliveryDoc } from './records';

/** What a retry by hand reads and writes: a delivery's attempt log and the queue of due attempts. */
export type ManualRetryStore = Pick<DeliveryLog, 'attemptsOf'> & { due: Pick<DueAttempts, 'entry' | 'schedule'> };

export interface ManualRetryTiming {
  /** How long to wait for the worker to take a finished attempt off the due queue. */
  finishingWaitMs: number;
  pollMs: number;
}

const FINISHING: ManualRetryTiming = { finishingWaitMs: 2_000, pollMs: 50 };

const stillTried = () => new ConflictError('delivery-pending', 'This delivery is still being tried; it can be retried once it has failed.');

/**
 * Schedules one more attempt of a failed delivery, due now. The worker records a delivery's last
 * attempt before it takes the attempt off the due queue (a crash in between repeats the attempt,
 * never loses it), so for a moment the log already says `failed` while the queue still holds the
 * attempt it recorded: a retry then waits for that removal, as the support person who read
 * `failed` expects a retry to be taken. A queued attempt that has not been made yet (the worker's,
 * or an earlier retry by hand) is a conflict.
 */
export async function retryByHand(
  store: ManualRetryStore,
  delivery: Pick<DeliveryDoc, '_id' | 'endpointId'>,
  timing: ManualRetryTiming = FINISHING,
): Promise<void> {
  const attempts = await store.attemptsOf(delivery._id);
  const status = statusOf(attempts);
  if (status === 'succeeded') throw new ConflictError('delivery-succeeded', 'This delivery succeeded; there is nothing to retry.');
  if (status === 'pending') throw stillTried();
  const lastAttempt = lastOf(attempts)?.attempt ?? 0;
  const deadline = Date.now() + timing.finishingWaitMs;
  let queued = await store.due.entry(delivery._id);
  while (queued && queued.attempt <= lastAttempt && Date.now() < deadline) {
    await sleep(timing.pollMs);
    queued = await store.due.entry(delivery._id);
  }
  if (queued) throw stillTried();
  await store.due.schedule(delivery._id, new Date(), { attempt: lastAttempt + 1, endpointId: delivery.endpointId, manual: true });
}
