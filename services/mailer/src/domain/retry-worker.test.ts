import type { Logger } from '@postbus/logger';
import type { EventDoc, MessageDoc } from './message-records';
import type { MessageRecords } from './ports/messages';
import type { DueRetry, RetrySchedule } from './ports/schedules';
import type { SuppressionLookup } from './ports/suppressions';
import type { Deliverer, Outcome } from './delivery/deliverer';
import { RetryWorker, WAKE_GRAIN_MS } from './retry-worker';
import type { Timeline } from './timeline';

const doc = (id: string, email = `${id}@example.org`) => ({ _id: id, projectId: 'p1', email }) as MessageDoc;
const event = (id: string, e: EventDoc['event'], sequence: number): EventDoc => ({
  _id: `${id}:${sequence}`,
  messageId: id,
  projectId: 'p1',
  event: e,
  sequence,
  at: new Date(),
});

/** Retries due, messages and timelines in memory; the deliverer answers per message what `outcomes` says. */
function fakes(
  due: DueRetry[],
  messages: MessageDoc[],
  timelines: Record<string, EventDoc[]>,
  outcomes: Record<string, Outcome>,
  intervalMs = 10,
) {
  const done: string[] = [];
  const delivered: Array<{ id: string; reason: string | undefined }> = [];
  const recorded: Array<{ id: string; attempt: number; event: string }> = [];
  const claims: Array<[number, number]> = [];
  const byId = new Map(messages.map((m) => [m._id, m]));
  const retries = {
    claimDue: (limit: number, leaseMs: number) => {
      claims.push([limit, leaseMs]);
      return Promise.resolve(due.splice(0));
    },
    done: (id: string) => {
      done.push(id);
      return Promise.resolve();
    },
  } as unknown as RetrySchedule;
  const store = {
    messagesById: (ids: string[]) => Promise.resolve(new Map(ids.flatMap((id) => (byId.has(id) ? [[id, byId.get(id)!]] : [])))),
    timelines: (ids: string[]) => Promise.resolve(new Map(ids.map((id) => [id, timelines[id] ?? []]))),
  } as unknown as MessageRecords;
  const suppressions = {
    // One reason per message asked about, in order: an unsubscribed address has one.
    reasons: (found: MessageDoc[]) => Promise.resolve(found.map((m) => (m.email.startsWith('gone') ? 'unsubscribed' : undefined))),
  } as unknown as SuppressionLookup;
  const deliverer = {
    deliver: (m: MessageDoc, reason: string | undefined) => {
      delivered.push({ id: m._id, reason });
      return Promise.resolve(outcomes[m._id] ?? { event: 'sent' });
    },
  } as unknown as Deliverer;
  // As Timeline does: a deferral at the last attempt is recorded as failed.
  const timeline = {
    recordAttempt: (m: MessageDoc, attempt: number, outcome: Outcome) => {
      const e = outcome.event === 'deferred' && attempt >= 3 ? 'failed' : outcome.event;
      recorded.push({ id: m._id, attempt, event: e });
      return Promise.resolve({ event: e });
    },
  } as unknown as Timeline;
  const logger = { warn: jest.fn() } as unknown as Logger;
  const worker = new RetryWorker({ retries, store, suppressions, deliverer, timeline, logger, intervalMs });
  return { worker, done, delivered, recorded, claims, logger };
}

describe('a poll of the retry queue', () => {
  it('makes each due attempt with its number and its suppression reason, and ends the retry unless deferred again', async () => {
    const { worker, done, delivered, recorded, claims } = fakes(
      [
        { messageId: 'a', attempt: 2 },
        { messageId: 'b', attempt: 2 },
        { messageId: 'gone', attempt: 2 },
      ],
      [doc('a'), doc('b'), doc('gone')],
      { a: [event('a', 'deferred', 2)], b: [event('b', 'deferred', 2)], gone: [event('gone', 'deferred', 2)] },
      { a: { event: 'sent' }, b: { event: 'deferred' }, gone: { event: 'suppressed' } },
    );
    await worker.runDue();
    expect(claims).toEqual([[100, 120_000]]);
    expect(delivered).toEqual([
      { id: 'a', reason: undefined },
      { id: 'b', reason: undefined },
      { id: 'gone', reason: 'unsubscribed' },
    ]);
    expect(recorded).toEqual([
      { id: 'a', attempt: 2, event: 'sent' },
      { id: 'b', attempt: 2, event: 'deferred' },
      { id: 'gone', attempt: 2, event: 'suppressed' },
    ]);
    expect(done.sort()).toEqual(['a', 'gone']); // b stays scheduled (recordAttempt scheduled its next attempt)
  });

  it('ends the retry of a message whose last attempt was exhausted to failed', async () => {
    const { worker, done, recorded } = fakes([{ messageId: 'a', attempt: 3 }], [doc('a')], {}, { a: { event: 'deferred' } });
    await worker.runDue();
    expect(recorded).toEqual([{ id: 'a', attempt: 3, event: 'failed' }]);
    expect(done).toEqual(['a']);
  });

  it('sends nothing for a message gone (erased) or whose delivery is over already, and ends its retry', async () => {
    const { worker, done, delivered, recorded } = fakes(
      [
        { messageId: 'erased', attempt: 2 },
        { messageId: 'sent', attempt: 3 },
      ],
      [doc('sent')],
      { sent: [event('sent', 'deferred', 2), event('sent', 'sent', 3)] },
      {},
    );
    await worker.runDue();
    expect(delivered).toEqual([]);
    expect(recorded).toEqual([]);
    expect(done.sort()).toEqual(['erased', 'sent']);
  });

  it('with nothing due reads nothing', async () => {
    const { worker, delivered } = fakes([], [], {}, {});
    await expect(worker.runDue()).resolves.toBeUndefined();
    expect(delivered).toEqual([]);
  });
});

it('start polls on its interval until stopped', async () => {
  const { worker, recorded } = fakes([{ messageId: 'a', attempt: 2 }], [doc('a')], {}, {});
  worker.start();
  for (let i = 0; i < 100 && recorded.length === 0; i++) await new Promise((r) => setTimeout(r, 5));
  await worker.stop();
  expect(recorded).toEqual([{ id: 'a', attempt: 2, event: 'sent' }]);
});

describe('the retry worker between polls', () => {
  it('makes an attempt it was woken for when it falls due, long before its next poll', async () => {
    const { worker, claims, delivered } = fakes([], [doc('a')], {}, {}, 60_000);
    worker.start();
    try {
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(claims).toHaveLength(0); // no poll yet: the first comes after a minute
      // Two times inside one grain of wake-ups make one wake-up: 10 ms before a grain's end, and 1 ms
      // later (times taken from two calls of Date.now() may straddle a grain's end: two runs).
      const dueAt = Math.ceil((Date.now() + 100) / WAKE_GRAIN_MS) * WAKE_GRAIN_MS - 10;
      worker.wakeAt(new Date(dueAt));
      worker.wakeAt(new Date(dueAt + 1)); // the same wake-up
      await new Promise((resolve) => setTimeout(resolve, 60));
      expect(claims).toHaveLength(0); // not before it is due
      await new Promise((resolve) => setTimeout(resolve, 150));
      expect(claims).toHaveLength(1);
      expect(delivered).toEqual([]);
    } finally {
      await worker.stop();
    }
  });

  it('a wake-up pending at stop() makes no run', async () => {
    const { worker, claims } = fakes([], [], {}, {}, 60_000);
    worker.start();
    worker.wakeAt(new Date(Date.now() + 30));
    await worker.stop();
    await new Promise((resolve) => setTimeout(resolve, 80));
    expect(claims).toHaveLength(0);
  });
});
