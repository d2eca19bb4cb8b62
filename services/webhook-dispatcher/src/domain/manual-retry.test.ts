import { ConflictError } from '@postbus/errors';
import { retryByHand, type ManualRetryStore } from './manual-retry';
import type { AttemptDoc, DuePayload } from './records';

const attempt = (n: number, outcome: AttemptDoc['outcome']): AttemptDoc => ({
  _id: `wd_1:${n}`,
  deliveryId: 'wd_1',
  endpointId: 'we_1',
  attempt: n,
  at: new Date(),
  statusCode: outcome === 'succeeded' ? 200 : 500,
  latencyMs: 3,
  response: null,
  error: null,
  outcome,
  nextAttemptAt: null,
});

/** A store whose due queue holds `queued` for the delivery until `removeAfterMs` (never when undefined). */
function store(attempts: AttemptDoc[], queued: DuePayload | null, removeAfterMs?: number) {
  let entry = queued;
  if (removeAfterMs !== undefined) setTimeout(() => (entry = null), removeAfterMs);
  const scheduled: DuePayload[] = [];
  const fake: ManualRetryStore = {
    attemptsOf: () => Promise.resolve(attempts),
    due: {
      entry: () => Promise.resolve(entry),
      schedule: (_id, _at, payload) => {
        entry = payload;
        scheduled.push(payload);
        return Promise.resolve();
      },
    },
  };
  return { fake, scheduled };
}

const delivery = { _id: 'wd_1', endpointId: 'we_1' };
const timing = { finishingWaitMs: 1_000, pollMs: 10 };
const failedTwice = [attempt(1, 'retrying'), attempt(2, 'failed')];

describe('retryByHand', () => {
  it('schedules the attempt after the last one, by hand, for a failed delivery', async () => {
    const { fake, scheduled } = store(failedTwice, null);
    await retryByHand(fake, delivery, timing);
    expect(scheduled).toEqual([{ attempt: 3, endpointId: 'we_1', manual: true }]);
  });

  it('waits while the worker takes the attempt it recorded as failed off the queue, then schedules', async () => {
    // The log already says failed; the queue still holds attempt 2 for a moment (ci3's 409).
    const { fake, scheduled } = store(failedTwice, { attempt: 2, endpointId: 'we_1' }, 100);
    await retryByHand(fake, delivery, timing);
    expect(scheduled).toEqual([{ attempt: 3, endpointId: 'we_1', manual: true }]);
  });

  it('is a conflict when the recorded attempt stays queued past the wait (its worker died before taking it off)', async () => {
    const { fake, scheduled } = store(failedTwice, { attempt: 2, endpointId: 'we_1' });
    const started = Date.now();
    await expect(retryByHand(fake, delivery, timing)).rejects.toMatchObject({ slug: 'delivery-pending' });
    expect(Date.now() - started).toBeGreaterThanOrEqual(timing.finishingWaitMs - 20);
    expect(scheduled).toEqual([]);
  });

  it('is a conflict at once while a retry by hand is already queued', async () => {
    const { fake, scheduled } = store(failedTwice, { attempt: 3, endpointId: 'we_1', manual: true });
    const started = Date.now();
    await expect(retryByHand(fake, delivery, timing)).rejects.toBeInstanceOf(ConflictError);
    expect(Date.now() - started).toBeLessThan(timing.finishingWaitMs / 2);
    expect(scheduled).toEqual([]);
  });

  it('is a conflict while the delivery is still being tried, and once it succeeded', async () => {
    await expect(retryByHand(store([attempt(1, 'retrying')], null).fake, delivery, timing)).rejects.toMatchObject({
      slug: 'delivery-pending',
    });
    await expect(retryByHand(store([attempt(1, 'succeeded')], null).fake, delivery, timing)).rejects.toMatchObject({
      slug: 'delivery-succeeded',
    });
  });
});
