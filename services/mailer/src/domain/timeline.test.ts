import type { Publisher } from '@postbus/bus';
import { acceptedMessage } from '../../test/accepted-message';
import type { ContentDoc, EventDoc, SummaryDoc } from './message-records';
import type { MessageRecords } from './ports/messages';
import type { RetrySchedule } from './ports/schedules';
import { engagementKey, retryDelayMs, Timeline, type RetryPolicy } from './timeline';

const POLICY: RetryPolicy = { maxAttempts: 3, baseMs: 1_000, maxMs: 5_000 };
const created = new Date('2026-05-01T00:00:00.000Z');
const message = acceptedMessage({ id: 'msg_1', projectId: 'p1', email: 'ada@example.org', acceptedAt: created });

/** A message's delivery entry for its first attempt, sent (`<message>:2`), as the store holds it. */
const sentEntry = (messageId: string): EventDoc => ({
  _id: `${messageId}:2`,
  messageId,
  projectId: 'p1',
  event: 'sent',
  sequence: 2,
  at: created,
  attempt: 1,
});

/** An engagement entry (`<message>:e<n>`) as the store holds it, counted once. */
const engagementEntry = (_id: string, event: EventDoc['event'], key: string, sequence: number, at = new Date()): EventDoc => ({
  _id,
  messageId: _id.slice(0, _id.lastIndexOf(':')),
  projectId: 'p1',
  event,
  key,
  sequence,
  at,
  count: 1,
});

/** A message store in memory (events by id, unique like the collection), a retry queue and a publisher that record. */
function fakes() {
  const events = new Map<string, EventDoc>();
  const contents: ContentDoc[] = [];
  const kept: SummaryDoc[] = [];
  const replaced: SummaryDoc[] = [];
  const scheduled: Array<{ messageId: string; attempt: number; dueAt: Date }> = [];
  const published: Array<{ type: string; key: string; data: Record<string, unknown>; id: string | undefined }> = [];
  const stored: EventDoc[] = [];
  /** Timeline reads to answer from before a concurrent writer's insert (a stale read), once each. */
  const stale: EventDoc[][] = [];
  const timelineOf = (id: string) => [...events.values()].filter((e) => e.messageId === id).sort((a, b) => a.sequence - b.sequence);
  const store = {
    appendNew: (docs: EventDoc[]) => {
      const existing = new Set<string>();
      for (const d of docs) {
        if (events.has(d._id)) existing.add(d._id);
        else events.set(d._id, { ...d });
      }
      return Promise.resolve(existing);
    },
    keepContents: (docs: ContentDoc[]) => {
      contents.push(...docs);
      return Promise.resolve();
    },
    keepSummaries: (docs: SummaryDoc[]) => {
      kept.push(...docs);
      return Promise.resolve();
    },
    replaceSummary: (doc: SummaryDoc) => {
      replaced.push(doc);
      return Promise.resolve();
    },
    timeline: (id: string) => Promise.resolve(stale.shift() ?? timelineOf(id)),
    countAgain: (id: string) => {
      const e = events.get(id)!;
      e.count = (e.count ?? 1) + 1;
      return Promise.resolve();
    },
  } as unknown as MessageRecords;
  const retries = {
    schedule: (messageId: string, attempt: number, dueAt: Date) => {
      scheduled.push({ messageId, attempt, dueAt });
      return Promise.resolve();
    },
  } as unknown as RetrySchedule;
  const publisher = {
    publish: (_topic: string, type: string, key: string, data: Record<string, unknown>, options?: { id?: string }) => {
      published.push({ type, key, data, id: options?.id });
      return Promise.resolve();
    },
  } as unknown as Publisher;
  const timeline = new Timeline(store, publisher, retries, POLICY, (_m, e) => {
    stored.push(e);
    return Promise.resolve();
  });
  return { timeline, events, contents, kept, replaced, scheduled, published, stored, stale, timelineOf };
}

describe('recordAttempt', () => {
  it('a deferred attempt schedules the next one after a backoff, and emits queued with it the first time', async () => {
    const { timeline, scheduled, published, kept, stored } = fakes();
    const before = Date.now();
    const doc = await timeline.recordAttempt(message, 1, { event: 'deferred', smtp: { code: 421, response: '421 busy' } });
    expect(doc).toMatchObject({ _id: 'msg_1:2', event: 'deferred', sequence: 2, attempt: 1, smtp: { code: 421, response: '421 busy' } });
    expect(scheduled).toHaveLength(1);
    expect(scheduled[0]).toMatchObject({ messageId: 'msg_1', attempt: 2 });
    const delay = scheduled[0]!.dueAt.getTime() - before;
    expect(delay).toBeGreaterThanOrEqual(POLICY.baseMs * 0.8 - 5);
    expect(delay).toBeLessThanOrEqual(POLICY.baseMs * 1.2 + 1_000);
    expect(published.map((p) => [p.type, p.id])).toEqual([
      ['message.queued', 'msg_1:1'],
      ['message.deferred', 'msg_1:2'],
    ]);
    expect(kept).toEqual([]); // not terminal: no summary yet
    expect(stored.map((e) => e._id)).toEqual(['msg_1:2']);
  });

  it('a deferral at maxAttempts is the end: failed, with the reason, and no retry', async () => {
    const { timeline, scheduled, published, kept } = fakes();
    await timeline.recordAttempt(message, 1, { event: 'deferred' });
    await timeline.recordAttempt(message, 2, { event: 'deferred' });
    const doc = await timeline.recordAttempt(message, 3, { event: 'deferred', smtp: { code: 451, response: '451 later' } });
    expect(doc).toMatchObject({ _id: 'msg_1:4', event: 'failed', sequence: 4, attempt: 3, reason: 'retries exhausted after 3 attempts' });
    expect(scheduled.map((s) => s.attempt)).toEqual([2, 3]);
    expect(published.map((p) => p.type)).toEqual(['message.queued', 'message.deferred', 'message.deferred', 'message.failed']);
    // The summary follows the attempts before it.
    expect(kept).toHaveLength(1);
    expect(kept[0]!.view.status).toBe('failed');
    expect(kept[0]!.view.timeline.map((e) => e.event)).toEqual(['queued', 'deferred', 'deferred', 'failed']);
  });

  it('a sent attempt keeps its rendered email and its summary, and tells onStored once (not on a replay)', async () => {
    const { timeline, contents, kept, stored, published, scheduled } = fakes();
    const outcome = {
      event: 'sent' as const,
      smtp: { code: 250, response: '250 OK' },
      subject: 'Hello',
      content: { subject: 'Hello', html: '<p>Hi</p>', text: 'Hi' },
    };
    await timeline.recordAttempt(message, 1, outcome);
    await timeline.recordAttempt(message, 1, outcome); // the trigger redelivered
    expect(scheduled).toEqual([]);
    expect(contents[0]).toEqual({ _id: 'msg_1', subject: 'Hello', html: '<p>Hi</p>', text: 'Hi', truncated: false });
    expect(kept[0]!.view).toMatchObject({ status: 'sent', subject: 'Hello' });
    expect(stored).toHaveLength(1);
    // Emitted again with the same ids: receivers recognise it.
    expect(published.map((p) => p.id)).toEqual(['msg_1:1', 'msg_1:2', 'msg_1:1', 'msg_1:2']);
  });

  it('emits each entry keyed by the message, with the message’s fields', async () => {
    const { timeline, published } = fakes();
    await timeline.recordAttempt(message, 1, { event: 'bounced', smtp: { code: 550, response: '550 unknown' }, reason: 'unknown user' });
    expect(published[1]).toMatchObject({
      type: 'message.bounced',
      key: 'msg_1',
      data: {
        messageId: 'msg_1',
        projectId: 'p1',
        emailKey: 'welcome',
        email: 'ada@example.org',
        userId: null,
        event: 'bounced',
        sequence: 2,
        attempt: 1,
        reason: 'unknown user',
        smtp: { code: 550, response: '550 unknown' },
      },
    });
  });
});

describe('recordAttempt of a language variant', () => {
  it("keeps the variant on the attempt's entry, its summary and its event; the default's names none", async () => {
    const { timeline, published, kept, events } = fakes();
    const outcome = { event: 'sent' as const, smtp: { code: 250, response: '250 OK' }, subject: 'Hallo', language: 'de' };
    await timeline.recordAttempt(message, 1, outcome);
    expect(events.get('msg_1:2')).toMatchObject({ subject: 'Hallo', language: 'de' });
    expect(kept[0]!.view).toMatchObject({ status: 'sent', subject: 'Hallo', language: 'de' });
    expect(published.map((p) => [p.type, p.data['language']])).toEqual([
      ['message.queued', undefined],
      ['message.sent', 'de'],
    ]);
    const other = fakes();
    await other.timeline.recordAttempt(message, 1, { event: 'sent', subject: 'Hello' });
    expect(other.events.get('msg_1:2')).not.toHaveProperty('language');
    expect(other.kept[0]!.view.language).toBeNull();
    expect(other.published.every((p) => !('language' in p.data))).toBe(true);
  });
});

describe('retryDelayMs', () => {
  afterEach(() => jest.restoreAllMocks());

  it('doubles from baseMs, capped at maxMs, within ±20 % jitter', () => {
    jest.spyOn(Math, 'random').mockReturnValue(0.5); // no jitter
    expect([1, 2, 3, 4].map((a) => retryDelayMs(POLICY, a))).toEqual([1_000, 2_000, 4_000, 5_000]);
    jest.spyOn(Math, 'random').mockReturnValue(0);
    expect(retryDelayMs(POLICY, 1)).toBeCloseTo(800);
    jest.spyOn(Math, 'random').mockReturnValue(1);
    expect(retryDelayMs(POLICY, 1)).toBeCloseTo(1_200);
  });
});

describe('recordEngagement', () => {
  const sent = async (t: Timeline) => t.recordAttempt(message, 1, { event: 'sent', smtp: { code: 250, response: '250 OK' } });

  it('adds the first open after the last entry and emits it', async () => {
    const { timeline, timelineOf, published, replaced } = fakes();
    await sent(timeline);
    const at = new Date('2026-05-01T01:00:00.000Z');
    expect(await timeline.recordEngagement(message, 'opened', at)).toBe(true);
    expect(timelineOf('msg_1').at(-1)).toMatchObject({ _id: 'msg_1:e1', event: 'opened', key: 'opened', sequence: 3, count: 1, at });
    expect(published.at(-1)).toMatchObject({ type: 'message.opened', id: 'msg_1:3' });
    expect(replaced.at(-1)!.view).toMatchObject({ opened: true, opens: 1 });
  });

  it('counts a repeated key on its entry instead of adding one, and emits nothing', async () => {
    const { timeline, timelineOf, published, replaced } = fakes();
    await sent(timeline);
    await timeline.recordEngagement(message, 'opened', new Date());
    const emitted = published.length;
    expect(await timeline.recordEngagement(message, 'opened', new Date())).toBe(false);
    expect(timelineOf('msg_1').filter((e) => e.event === 'opened')).toEqual([expect.objectContaining({ _id: 'msg_1:e1', count: 2 })]);
    expect(published).toHaveLength(emitted);
    expect(replaced.at(-1)!.view.opens).toBe(2);
  });

  it('keys a click by its link: another link is a new entry, the same link counted', async () => {
    const { timeline, timelineOf } = fakes();
    await sent(timeline);
    expect(await timeline.recordEngagement(message, 'clicked', new Date(), { url: 'https://a.example' })).toBe(true);
    expect(await timeline.recordEngagement(message, 'clicked', new Date(), { url: 'https://b.example' })).toBe(true);
    expect(await timeline.recordEngagement(message, 'clicked', new Date(), { url: 'https://a.example' })).toBe(false);
    const clicks = timelineOf('msg_1').filter((e) => e.event === 'clicked');
    expect(clicks.map((e) => [e._id, e.sequence, e.url, e.count])).toEqual([
      ['msg_1:e1', 3, 'https://a.example', 2],
      ['msg_1:e2', 4, 'https://b.example', 1],
    ]);
    expect(clicks[0]!.key).toBe(engagementKey('clicked', 'https://a.example'));
    expect(clicks[0]!.key).not.toBe(clicks[1]!.key);
  });

  it('a number another instance took is skipped; one taken by this very engagement is counted', async () => {
    const { timeline, timelineOf, stale, events } = fakes();
    await sent(timeline);
    const before = timelineOf('msg_1');
    // Another instance added a click as e1 after this one read the timeline.
    events.set('msg_1:e1', engagementEntry('msg_1:e1', 'clicked', 'clicked:x', 3));
    stale.push(before);
    expect(await timeline.recordEngagement(message, 'opened', new Date())).toBe(true);
    // After the entry another took: its own number and sequence both one on (the sent entry is 2, the click 3).
    expect(events.get('msg_1:e2')).toMatchObject({ event: 'opened', key: 'opened', sequence: 4 });
    expect(events.get('msg_1:e1')).toMatchObject({ event: 'clicked', count: 1 });
    // And then added the open too (e3) after this one read the timeline again.
    const upToOpen = timelineOf('msg_1');
    events.set('msg_1:e3', engagementEntry('msg_1:e3', 'unsubscribed', 'unsubscribed', 5));
    stale.push(upToOpen);
    expect(await timeline.recordEngagement(message, 'unsubscribed', new Date())).toBe(false);
    expect(events.get('msg_1:e3')!.count).toBe(2);
    expect(events.has('msg_1:e4')).toBe(false);
  });
});

describe('recordEngagements', () => {
  it('adds the entries whose key is new, leaves one whose key exists, and emits only what it added', async () => {
    const { timeline, events, published, replaced } = fakes();
    const other = { ...message, _id: 'msg_2' };
    const openedAlready = engagementEntry('msg_2:e1', 'opened', 'opened', 3, created);
    const added = await timeline.recordEngagements([
      { message, timeline: [sentEntry('msg_1')], event: 'opened', at: created },
      { message: other, timeline: [sentEntry('msg_2'), openedAlready], event: 'opened', at: created },
      { message: other, timeline: [sentEntry('msg_2'), openedAlready], event: 'complained', at: created, details: { reason: 'abuse' } },
    ]);
    expect(added).toEqual([true, false, true]);
    expect(events.get('msg_1:e1')).toMatchObject({ event: 'opened', sequence: 3 });
    expect(events.get('msg_2:e2')).toMatchObject({ event: 'complained', sequence: 4, reason: 'abuse' });
    expect(events.has('msg_2:e1')).toBe(false); // given in the timeline, not stored by it
    expect(published.map((p) => p.id).sort()).toEqual(['msg_1:3', 'msg_2:4']);
    expect(replaced.map((s) => s._id).sort()).toEqual(['msg_1', 'msg_2']);
  });

  it('reports false for an entry whose number was taken meanwhile (left to recordEngagement)', async () => {
    const { timeline, events, published } = fakes();
    events.set('msg_1:e1', engagementEntry('msg_1:e1', 'clicked', 'clicked:x', 3, created));
    expect(await timeline.recordEngagements([{ message, timeline: [], event: 'opened', at: created }])).toEqual([false]);
    expect(events.get('msg_1:e1')!.event).toBe('clicked');
    expect(published).toEqual([]);
  });
});
