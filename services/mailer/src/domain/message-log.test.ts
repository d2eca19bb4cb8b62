import type { Message, MessageStatus } from '@postbus/contracts';
import type { ListPage, PageOptions } from '@postbus/db';
import { listNames, listOwner } from './message-lists';
import type { MessageListing, MessageRecords } from './ports/messages';
import type { ContentDoc, EventDoc, MessageDoc } from './message-records';
import { MessageLog } from './message-log';
import { messageView } from './message-view';

const P = 'p1';
const T0 = Date.parse('2026-08-01T00:00:00.000Z');

interface Stored {
  doc: MessageDoc;
  events: EventDoc[];
  /** Its delivery is over: read from its summary. */
  finished: boolean;
}

const delivery = (id: string, event: EventDoc['event']): EventDoc => ({
  _id: `${id}:2`,
  messageId: id,
  projectId: P,
  event,
  sequence: 2,
  at: new Date(T0),
});

/**
 * Messages (finished ones with a summary), each listed in its project's list, its recipient's,
 * its user's and its email's, and under its status when that has a list; lists read newest first.
 */
function fakes(
  specs: Array<{
    id: string;
    email?: string;
    userId?: string | null;
    emailKey?: string;
    status?: MessageStatus;
    createdAt?: number;
    /** Stored by this process and not yet summarized by it. */
    deliveringHere?: boolean;
    test?: true;
  }>,
) {
  const stored = new Map<string, Stored>();
  const lists = new Map<string, Array<{ seq: number; at: Date; value: string }>>();
  const reads: string[] = [];
  const pages: Array<{ list: string; options: PageOptions }> = [];
  const listAppend = (list: string, at: Date, value: string) => {
    const entries = lists.get(list) ?? [];
    entries.push({ seq: entries.length + 1, at, value });
    lists.set(list, entries);
  };
  specs.forEach((s, i) => {
    const at = new Date(T0 + i * 1000);
    const doc = {
      _id: s.id,
      projectId: P,
      email: s.email ?? 'ada@example.org',
      userId: s.userId ?? null,
      emailKey: s.emailKey ?? 'welcome',
      acceptedAt: at,
      createdAt: new Date(s.createdAt ?? at.getTime()),
      ...(s.test ? { test: true } : {}),
    } as MessageDoc;
    const status = s.status ?? 'sent';
    stored.set(s.id, {
      doc,
      events: status === 'queued' ? [] : [delivery(s.id, status)],
      finished: status !== 'queued' && status !== 'deferred',
    });
    const owner = listOwner(P, s.test);
    listAppend(listNames.project(owner), at, s.id);
    listAppend(listNames.recipient(owner, doc.email), at, s.id);
    if (doc.userId !== null) listAppend(listNames.user(owner, doc.userId), at, s.id);
    listAppend(listNames.emailKey(owner, doc.emailKey!), at, s.id);
    if (status !== 'queued' && status !== 'sent') listAppend(listNames.status(owner, status), at, s.id);
  });
  const contents = new Map<string, ContentDoc>();
  const store = {
    summary: (projectId: string, id: string) => {
      reads.push(`summary ${id}`);
      const s = stored.get(id);
      return Promise.resolve(s && s.finished && s.doc.projectId === projectId ? messageView(s.doc, s.events) : null);
    },
    message: (projectId: string, id: string) => {
      reads.push(`message ${id}`);
      const s = stored.get(id);
      return Promise.resolve(s && s.doc.projectId === projectId ? s.doc : null);
    },
    timeline: (id: string) => {
      reads.push(`timeline ${id}`);
      return Promise.resolve(stored.get(id)?.events ?? []);
    },
    content: (id: string) => Promise.resolve(contents.get(id) ?? null),
    inDeliveryHere: (id: string) => specs.some((s) => s.id === id && s.deliveringHere === true),
  } as unknown as MessageRecords;
  const messageLists = {
    page: (list: string, options: PageOptions): Promise<ListPage> => {
      pages.push({ list, options });
      const matching = (lists.get(list) ?? [])
        .filter(
          (e) =>
            (options.beforeSeq === undefined || e.seq < options.beforeSeq) &&
            (!options.from || e.at >= options.from) &&
            (!options.to || e.at <= options.to),
        )
        .reverse();
      const entries = matching.slice(0, options.limit);
      return Promise.resolve({ entries, next: matching.length > entries.length ? entries.at(-1)!.seq : null });
    },
    newestKnown: (list: string, limit: number) =>
      (lists.get(list) ?? [])
        .slice(-limit)
        .reverse()
        .map((e) => e.value),
  } as unknown as MessageListing;
  const log = new MessageLog(store, messageLists);
  return { log, reads, pages, contents, stored };
}

const ids = (data: Message[]) => data.map((m) => m.id);

describe('one message', () => {
  it('is its summary when its delivery is over: one read', async () => {
    const { log, reads } = fakes([{ id: 'm1', status: 'bounced' }]);
    expect(await log.message(P, 'm1')).toMatchObject({ id: 'm1', status: 'bounced' });
    expect(reads).toEqual(['summary m1']);
  });

  it('is read from the message and its timeline while in delivery', async () => {
    const { log, reads } = fakes([{ id: 'm1', status: 'deferred' }]);
    expect(await log.message(P, 'm1')).toMatchObject({ id: 'm1', status: 'deferred' });
    expect(reads.sort()).toEqual(['message m1', 'summary m1', 'timeline m1']);
  });

  it('that this process is delivering is read from the message and its timeline at once, with no summary read first', async () => {
    const { log, reads } = fakes([{ id: 'm1', status: 'queued', deliveringHere: true }]);
    expect(await log.message(P, 'm1')).toMatchObject({ id: 'm1', status: 'queued' });
    expect(reads.sort()).toEqual(['message m1', 'timeline m1']);
  });

  it('that this process guessed in delivery but whose delivery ended reads as its summary would', async () => {
    const { log } = fakes([{ id: 'm1', status: 'bounced', deliveringHere: true }]);
    expect(await log.message(P, 'm1')).toEqual(await fakes([{ id: 'm1', status: 'bounced' }]).log.message(P, 'm1'));
  });

  it('of another project, or unknown, is null', async () => {
    const { log } = fakes([{ id: 'm1', status: 'queued' }]);
    expect(await log.message('p2', 'm1')).toBeNull();
    expect(await log.message(P, 'nope')).toBeNull();
  });
});

describe('content', () => {
  it('is undefined for no such message, null when never rendered, else the email as kept', async () => {
    const { log, contents } = fakes([{ id: 'm1' }, { id: 'm2', status: 'suppressed' }, { id: 'm3', test: true }]);
    contents.set('m1', { _id: 'm1', subject: 'Hi', html: '<p>Hi</p>', text: 'Hi', truncated: true });
    expect(await log.content(P, 'nope')).toBeUndefined();
    expect(await log.content('p2', 'm1')).toBeUndefined();
    expect(await log.content(P, 'm2')).toEqual({ content: null, test: false });
    expect(await log.content(P, 'm1')).toEqual({
      content: { subject: 'Hi', html: '<p>Hi</p>', text: 'Hi', truncated: true },
      test: false,
    });
    // Says it is a test message: the gateway shows a test key nothing else.
    expect(await log.content(P, 'm3')).toEqual({ content: null, test: true });
  });
});

describe('a page', () => {
  it('is the project’s messages newest first, with a cursor to the next page', async () => {
    const { log } = fakes([{ id: 'm1' }, { id: 'm2' }, { id: 'm3' }]);
    const first = await log.page({ projectId: P, limit: 2 });
    expect(ids(first.data)).toEqual(['m3', 'm2']);
    expect(first.next).not.toBeNull();
    const second = await log.page({ projectId: P, limit: 2, before: first.next! });
    expect(ids(second.data)).toEqual(['m1']);
    expect(second.next).toBeNull();
  });

  it('that ends exactly at the list’s end has no cursor', async () => {
    const { log } = fakes([{ id: 'm1' }, { id: 'm2' }]);
    expect(await log.page({ projectId: P, limit: 2 })).toMatchObject({ next: null });
  });

  it.each([
    [{ email: 'bob@example.org' }, listNames.recipient(P, 'bob@example.org'), true],
    [{ userId: 'u-2' }, listNames.user(P, 'u-2'), true],
    [{ emailKey: 'reset' }, listNames.emailKey(P, 'reset'), true],
    [{ status: 'bounced' as const }, listNames.status(P, 'bounced'), false],
    [{ status: 'sent' as const }, listNames.project(P), true],
    [{}, listNames.project(P), true],
  ])('with %j reads the list that serves it', async (filter, list, byTime) => {
    const { log, pages } = fakes([{ id: 'm1' }]);
    const to = new Date(T0 + 60_000);
    await log.page({ projectId: P, limit: 10, to, ...filter });
    expect(pages[0]!.list).toBe(list);
    // A status list is in the order messages reached it: `to` does not bound it.
    expect(pages[0]!.options.to).toEqual(byTime ? to : undefined);
  });

  it('filters on every field asked, whatever list serves it', async () => {
    const { log } = fakes([
      { id: 'm1', email: 'bob@example.org', emailKey: 'welcome', status: 'sent' },
      { id: 'm2', email: 'bob@example.org', emailKey: 'reset', status: 'sent' },
      { id: 'm3', email: 'bob@example.org', emailKey: 'reset', status: 'bounced' },
      { id: 'm4', email: 'ada@example.org', emailKey: 'reset', status: 'sent' },
    ]);
    expect(ids((await log.page({ projectId: P, limit: 10, email: 'bob@example.org', emailKey: 'reset' })).data)).toEqual(['m3', 'm2']);
    expect(ids((await log.page({ projectId: P, limit: 10, status: 'sent', emailKey: 'reset' })).data)).toEqual(['m4', 'm2']);
    // A status list holds what reached the status: checked against the status now.
    expect(ids((await log.page({ projectId: P, limit: 10, status: 'bounced' })).data)).toEqual(['m3']);
  });

  it('skips entries whose message is gone', async () => {
    const { log, stored } = fakes([{ id: 'm1' }, { id: 'm2' }, { id: 'm3' }]);
    stored.delete('m2');
    expect(ids((await log.page({ projectId: P, limit: 10 })).data)).toEqual(['m3', 'm1']);
  });

  it('allows a minute of clock difference on `to` (created_at is the mailer’s time)', async () => {
    const to = T0 + 10_000;
    const { log } = fakes([
      { id: 'late', createdAt: to + 61_000 },
      { id: 'within', createdAt: to + 59_000 },
    ]);
    expect(ids((await log.page({ projectId: P, limit: 10, to: new Date(to) })).data)).toEqual(['within']);
  });

  it('looks at no more than 200 entries, and then returns what it found with a cursor to read on', async () => {
    // Only the oldest of 300 messages was sent (the rest are still in delivery): `sent` is read from the project's list.
    const specs = Array.from({ length: 300 }, (_, i) => ({ id: `m${i + 1}`, status: i === 0 ? ('sent' as const) : ('deferred' as const) }));
    const { log, pages } = fakes(specs);
    const first = await log.page({ projectId: P, limit: 10, status: 'sent' });
    expect(first.data).toEqual([]);
    expect(first.next).not.toBeNull();
    expect(pages.reduce((n, p) => n + p.options.limit, 0)).toBe(200);
    // The next page continues after the 200th newest entry (m101).
    expect(first.next).toBe(101);
    const second = await log.page({ projectId: P, limit: 10, status: 'sent', before: first.next! });
    expect(ids(second.data)).toEqual(['m1']);
  });

  it('reads a first page’s likely messages before the list confirms them, and a later page’s only from the list', async () => {
    const { log, reads } = fakes([{ id: 'm1' }, { id: 'm2' }, { id: 'm3' }]);
    const first = await log.page({ projectId: P, limit: 2 });
    expect(reads).toEqual(['summary m3', 'summary m2']); // once each, though the page holds them too
    reads.length = 0;
    await log.page({ projectId: P, limit: 2, before: first.next! });
    expect(reads).toEqual(['summary m1']);
  });
});

describe('test messages', () => {
  const specs = [
    { id: 'm1' },
    { id: 't1', test: true as const },
    { id: 'm2', status: 'bounced' as const },
    { id: 't2', test: true as const, status: 'bounced' as const },
    { id: 't3', test: true as const, email: 'bob@example.org' },
  ];

  it('are left out of the default log, which never reads their lists', async () => {
    const { log, pages } = fakes(specs);
    expect(ids((await log.page({ projectId: P, limit: 10 })).data)).toEqual(['m2', 'm1']);
    expect(ids((await log.page({ projectId: P, limit: 10, status: 'bounced' })).data)).toEqual(['m2']);
    expect(pages.map((p) => p.list)).toEqual([listNames.project(P), listNames.status(P, 'bounced')]);
  });

  it('are read with test, alone, from the test log, under every filter', async () => {
    const { log, pages } = fakes(specs);
    const T = listOwner(P, true);
    expect(ids((await log.page({ projectId: P, limit: 10, test: true })).data)).toEqual(['t3', 't2', 't1']);
    expect(ids((await log.page({ projectId: P, limit: 10, test: true, status: 'bounced' })).data)).toEqual(['t2']);
    expect(ids((await log.page({ projectId: P, limit: 10, test: true, email: 'bob@example.org' })).data)).toEqual(['t3']);
    expect(ids((await log.page({ projectId: P, limit: 10, test: true, emailKey: 'welcome' })).data)).toEqual(['t3', 't2', 't1']);
    expect(pages.map((p) => p.list)).toEqual([
      listNames.project(T),
      listNames.status(T, 'bounced'),
      listNames.recipient(T, 'bob@example.org'),
      listNames.emailKey(T, 'welcome'),
    ]);
  });

  it('are shown as test messages; the others as not', async () => {
    const { log } = fakes(specs);
    expect((await log.message(P, 't2'))?.test).toBe(true);
    expect((await log.message(P, 'm2'))?.test).toBe(false);
  });
});
