import { RUN_AGAIN_NOW } from '@postbus/http/every';
import type { Logger } from '@postbus/logger';
import type { EventDoc, MessageDoc } from './message-records';
import type { MessageListing, MessageRecords, StatusCounter } from './ports/messages';
import type { StandingDecision, WaitingSends } from './ports/schedules';
import { RESCHEDULE_MARGIN_MS, ScheduledSends, ScheduleWorker } from './scheduled-sends';
import type { Timeline } from './timeline';

const SEND_AT = new Date('2026-11-27T12:00:10Z');
const message = (id: string, sendAt: Date | null = SEND_AT): MessageDoc =>
  ({
    _id: id,
    projectId: 'p1',
    emailKey: 'welcome',
    email: `${id}@example.org`,
    userId: null,
    acceptedAt: new Date('2026-11-27T12:00:00Z'),
    createdAt: new Date('2026-11-27T12:00:00Z'),
    ...(sendAt ? { sendAt } : {}),
  }) as MessageDoc;

/**
 * The schedule, the store and the timeline in memory, with the rules that matter here: a
 * decision is taken by whoever inserts it first, and a message's first outcome (sent or
 * canceled) takes one place in its timeline.
 */
function fakes(messages: MessageDoc[]) {
  const byId = new Map(messages.map((m) => [m._id, m]));
  const timelines = new Map<string, EventDoc[]>();
  const decisions = new Map<string, { decision: StandingDecision; at: Date }>();
  const waiting = new Map<string, Date>();
  const done: string[] = [];
  const counted: string[] = [];
  const listed: string[] = [];
  const emitted: string[] = [];
  const delivered: string[] = [];
  const entry = (id: string, event: EventDoc['event']): EventDoc => ({
    _id: `${id}:2`,
    messageId: id,
    projectId: 'p1',
    event,
    sequence: 2,
    at: new Date(),
  });
  const place = (id: string, event: EventDoc['event']): EventDoc => {
    const taken = timelines.get(id)?.[0];
    if (taken) return taken;
    timelines.set(id, [entry(id, event)]);
    return entry(id, event);
  };
  const decide = (id: string, decision: StandingDecision) => {
    const stored = decisions.get(id);
    if (stored) return { ...stored, fresh: false };
    const at = new Date();
    decisions.set(id, { decision, at });
    return { decision, at, fresh: true };
  };
  const queue = {
    schedule: (id: string, at: Date) => {
      if (!waiting.has(id)) waiting.set(id, at);
      return Promise.resolve();
    },
    claimDue: (limit: number) => Promise.resolve([...waiting.keys()].slice(0, limit)),
    done: (id: string) => {
      waiting.delete(id);
      done.push(id);
      return Promise.resolve();
    },
    decide: (id: string, decision: StandingDecision) => Promise.resolve(decide(id, decision)),
    decideMany: (ids: string[], decision: StandingDecision) => Promise.resolve(ids.map((id) => decide(id, decision))),
    release: (id: string, at: Date) => {
      if (decisions.get(id)?.decision === 'hold' && decisions.get(id)?.at === at) decisions.delete(id);
      return Promise.resolve();
    },
    move: (id: string, at: Date) => {
      waiting.set(id, at);
      return Promise.resolve();
    },
  } as unknown as WaitingSends;
  const store = {
    message: (projectId: string, id: string) => Promise.resolve(byId.get(id)?.projectId === projectId ? byId.get(id)! : null),
    messagesById: (ids: string[]) => Promise.resolve(new Map(ids.flatMap((id) => (byId.has(id) ? [[id, byId.get(id)!]] : [])))),
    timeline: (id: string) => Promise.resolve(timelines.get(id) ?? []),
    rewriteMessages: (docs: MessageDoc[]) => {
      for (const doc of docs) byId.set(doc._id, doc);
      return Promise.resolve();
    },
  } as unknown as MessageRecords;
  const timeline = {
    recordCanceled: (m: MessageDoc) => {
      const stored = place(m._id, 'canceled');
      if (stored.event !== 'canceled') return Promise.resolve('taken');
      emitted.push(`${m._id}:canceled`);
      return Promise.resolve('canceled');
    },
    announceScheduled: (m: MessageDoc) => {
      emitted.push(`${m._id}:scheduled`);
      return Promise.resolve();
    },
    republish: (m: MessageDoc) => {
      emitted.push(`${m._id}:again`);
      return Promise.resolve();
    },
  } as unknown as Timeline;
  const lists = {
    accepted: (m: MessageDoc, known: string) => {
      listed.push(`${m._id}:${known}`);
      return Promise.resolve();
    },
    reached: (m: MessageDoc, status: string) => {
      listed.push(`${m._id}:${status}`);
      return Promise.resolve();
    },
  } as unknown as MessageListing;
  const rollups = { count: (_p: string, status: string) => counted.push(status) } as unknown as StatusCounter;
  const deliver = (m: MessageDoc) => {
    delivered.push(m._id);
    place(m._id, 'sent');
    return Promise.resolve();
  };
  const scheduled = new ScheduledSends({ store, queue, lists, rollups, timeline });
  const logger = { warn: jest.fn() } as unknown as Logger;
  const worker = new ScheduleWorker({ queue, store, timeline, deliver, logger, intervalMs: 10, leaseMs: 1000 });
  return { scheduled, worker, waiting, decisions, timelines, done, counted, listed, emitted, delivered, queue, store };
}

describe('scheduled sends', () => {
  it('accepts a scheduled message: counted and listed as scheduled, waiting for its send_at, and announced', async () => {
    const f = fakes([message('m1')]);
    await f.scheduled.accept(message('m1'), 'new');
    expect(f.counted).toEqual(['queued', 'scheduled']);
    expect(f.listed).toEqual(['m1:new', 'm1:scheduled']);
    expect(f.waiting.get('m1')).toEqual(SEND_AT);
    expect(f.emitted).toEqual(['m1:scheduled']);
  });

  it('takes a redelivered trigger of a message already sent as a replay: its events again, no new wait', async () => {
    const f = fakes([message('m1')]);
    f.timelines.set('m1', [{ _id: 'm1:2', messageId: 'm1', projectId: 'p1', event: 'sent', sequence: 2, at: new Date() }]);
    await f.scheduled.accept(message('m1'), 'maybe-seen');
    expect(f.emitted).toEqual(['m1:again']);
    expect(f.waiting.size).toBe(0);
    expect(f.counted).toEqual([]);
  });

  it('cancels a scheduled message once (a repeat answers the same), and the worker never sends it', async () => {
    const f = fakes([message('m1')]);
    await f.scheduled.accept(message('m1'), 'new');
    const first = await f.scheduled.cancel('p1', 'm1');
    expect(first).toMatchObject({ canceled: { id: 'm1', status: 'canceled', send_at: SEND_AT.toISOString() } });
    expect(await f.scheduled.cancel('p1', 'm1')).toMatchObject({ canceled: { status: 'canceled' } });
    expect(f.waiting.size).toBe(0);
    await f.worker.runDue();
    expect(f.delivered).toEqual([]);
  });

  it('refuses to cancel what is not there, what was sent without send_at, and another project’s message', async () => {
    const f = fakes([message('m1'), message('now', null)]);
    expect(await f.scheduled.cancel('p1', 'nope')).toBe('not-found');
    expect(await f.scheduled.cancel('p2', 'm1')).toBe('not-found');
    expect(await f.scheduled.cancel('p1', 'now')).toBe('not-scheduled');
  });

  it('sends a due message once; a cancel after is too late', async () => {
    const f = fakes([message('m1')]);
    await f.scheduled.accept(message('m1'), 'new');
    await f.worker.runDue();
    expect(f.delivered).toEqual(['m1']);
    expect(f.done).toEqual(['m1']);
    expect(await f.scheduled.cancel('p1', 'm1')).toBe('too-late');
    expect(f.decisions.get('m1')?.decision).toBe('send');
  });

  it('loses a race it did not win: a worker that decided to send makes a cancel a 409, before any outcome is stored', async () => {
    const f = fakes([message('m1')]);
    await f.scheduled.accept(message('m1'), 'new');
    // The worker has decided and is rendering (no outcome yet) when the cancel comes.
    await f.queue.decide('m1', 'send');
    expect(await f.scheduled.cancel('p1', 'm1')).toBe('too-late');
    expect(f.timelines.get('m1')).toBeUndefined();
  });

  it('finishes a cancel that decided and stopped before recording it: the worker records canceled and sends nothing', async () => {
    const f = fakes([message('m1')]);
    await f.scheduled.accept(message('m1'), 'new');
    await f.queue.decide('m1', 'cancel');
    await f.worker.runDue();
    expect(f.delivered).toEqual([]);
    expect(f.timelines.get('m1')?.map((e) => e.event)).toEqual(['canceled']);
    expect(f.emitted).toContain('m1:canceled');
    expect(f.done).toEqual(['m1']);
  });

  it('resumes a message whose claimer died after deciding to send', async () => {
    const f = fakes([message('m1')]);
    await f.scheduled.accept(message('m1'), 'new');
    await f.queue.decide('m1', 'send');
    await f.worker.runDue();
    expect(f.delivered).toEqual(['m1']);
  });

  it('after a full batch asks its loop to poll again at once; after the rest, to rest', async () => {
    const messages = Array.from({ length: 150 }, (_, i) => message(`m${i}`));
    const f = fakes(messages);
    for (const m of messages) await f.scheduled.accept(m, 'new');
    expect(await f.worker.runDue()).toBe(RUN_AGAIN_NOW);
    expect(f.delivered).toHaveLength(100);
    expect(await f.worker.runDue()).toBeUndefined();
    expect(f.delivered).toHaveLength(150);
    expect(await f.worker.runDue()).toBeUndefined();
  });

  it('drops the wait of a message that is gone (erased)', async () => {
    const f = fakes([]);
    await f.queue.schedule('gone', SEND_AT);
    await f.worker.runDue();
    expect(f.done).toEqual(['gone']);
    expect(f.delivered).toEqual([]);
  });

  describe('a change of time', () => {
    const LATER = new Date('2026-11-28T09:00:00Z');
    const AN_HOUR_BEFORE = new Date(SEND_AT.getTime() - 3_600_000);

    it('moves a waiting message: its wait and its record carry the new time, and the hold is gone', async () => {
      const f = fakes([message('m1')]);
      await f.scheduled.accept(message('m1'), 'new');
      const moved = await f.scheduled.reschedule('p1', 'm1', LATER, AN_HOUR_BEFORE);
      expect(moved).toMatchObject({ rescheduled: { id: 'm1', status: 'scheduled', send_at: LATER.toISOString() } });
      expect(f.waiting.get('m1')).toEqual(LATER);
      expect((await f.store.message('p1', 'm1'))?.sendAt).toEqual(LATER);
      expect(f.decisions.has('m1')).toBe(false);
      // It can move again, and be cancelled after.
      expect(await f.scheduled.reschedule('p1', 'm1', SEND_AT, AN_HOUR_BEFORE)).toMatchObject({
        rescheduled: { send_at: SEND_AT.toISOString() },
      });
      expect(await f.scheduled.cancel('p1', 'm1')).toMatchObject({ canceled: { status: 'canceled' } });
    });

    it('refuses what is not there, another project’s message, a send without send_at, a canceled one and a sent one', async () => {
      const f = fakes([message('m1'), message('m2'), message('now', null)]);
      await f.scheduled.accept(message('m1'), 'new');
      await f.scheduled.accept(message('m2'), 'new');
      expect(await f.scheduled.reschedule('p1', 'nope', LATER, AN_HOUR_BEFORE)).toBe('not-found');
      expect(await f.scheduled.reschedule('p2', 'm1', LATER, AN_HOUR_BEFORE)).toBe('not-found');
      expect(await f.scheduled.reschedule('p1', 'now', LATER, AN_HOUR_BEFORE)).toBe('not-scheduled');
      await f.scheduled.cancel('p1', 'm1');
      expect(await f.scheduled.reschedule('p1', 'm1', LATER, AN_HOUR_BEFORE)).toBe('canceled');
      await f.worker.runDue();
      expect(f.delivered).toEqual(['m2']);
      expect(await f.scheduled.reschedule('p1', 'm2', LATER, AN_HOUR_BEFORE)).toBe('too-late');
    });

    it('refuses a message due within the margin, which a worker may be taking, and leaves it as it was', async () => {
      const f = fakes([message('m1')]);
      await f.scheduled.accept(message('m1'), 'new');
      const justBefore = new Date(SEND_AT.getTime() - RESCHEDULE_MARGIN_MS + 1);
      expect(await f.scheduled.reschedule('p1', 'm1', LATER, justBefore)).toBe('too-late');
      expect(f.waiting.get('m1')).toEqual(SEND_AT);
      expect(f.decisions.has('m1')).toBe(false);
    });

    it('while a message is held, a worker that claims it leaves it waiting, and a cancel or another change is told to retry', async () => {
      const f = fakes([message('m1')]);
      await f.scheduled.accept(message('m1'), 'new');
      const hold = await f.queue.decide('m1', 'hold');
      await f.worker.runDue();
      expect(f.delivered).toEqual([]);
      expect(f.done).toEqual([]);
      expect(await f.scheduled.cancel('p1', 'm1')).toBe('busy');
      expect(await f.scheduled.reschedule('p1', 'm1', LATER, AN_HOUR_BEFORE)).toBe('busy');
      await f.queue.release('m1', hold.at);
      await f.worker.runDue();
      expect(f.delivered).toEqual(['m1']);
    });

    it('is refused once a worker decided to send, though nothing is recorded yet', async () => {
      const f = fakes([message('m1')]);
      await f.scheduled.accept(message('m1'), 'new');
      await f.queue.decide('m1', 'send');
      expect(await f.scheduled.reschedule('p1', 'm1', LATER, AN_HOUR_BEFORE)).toBe('too-late');
      expect(f.waiting.get('m1')).toEqual(SEND_AT);
    });
  });
});
