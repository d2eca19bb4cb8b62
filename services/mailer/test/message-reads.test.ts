import type { Server } from 'node:http';
import type { Publisher } from '@postbus/bus';
import { connectDb, isPointFilter, onRequestPath, recordQueries, UnboundedQueryError, type Connection } from '@postbus/db';
import { closeServer } from '@postbus/http';
import { createLogger } from '@postbus/logger';
import { call, defaultMongoUrl, internalAuthorization, uniqueDbName } from '@postbus/testing';
import { listNames, personListsOf } from '../src/domain/message-lists';
import { AttachmentStore } from '../src/model/attachment.repository';
import { MessageLists } from '../src/model/message-list.repository';
import { MessageStore } from '../src/model/message.repository';
import type { MessageDoc } from '../src/domain/message-records';
import { RetryQueue } from '../src/model/retry.repository';
import { StatusRollups } from '../src/model/rollup.repository';
import { ScheduleQueue } from '../src/model/schedule.repository';
import { Suppressions } from '../src/model/suppression.repository';
import { MessageRetention } from '../src/domain/message-retention';
import { seedMessages } from '../src/seed-data';
import { Timeline } from '../src/domain/timeline';
import { startMessageLogServer } from './message-log-server';
import { acceptedMessage } from './accepted-message';

/**
 * Issue 14: the message log's reads against the real MongoDB-wire server, through the internal
 * API with QUERY_AUDIT=strict (a query that is not an exact _id on messages or their events is
 * refused, and the request fails), next to 20,000 messages of another project.
 */
describe('message reads as the data grows', () => {
  const BIG = 20_000;
  const project = '0000000000000000000000a1';
  const busy = '0000000000000000000000b2';
  let db: Connection;
  let store: MessageStore;
  let lists: MessageLists;
  let rollups: StatusRollups;
  let timeline: Timeline;
  let server: Server;
  let url: string;
  let busyMessageId: string;
  const logger = createLogger({ service: 'mailer-test', level: 'error' });

  let n = 0;
  const message = (email: string, userId: string | null, emailKey = 'welcome', acceptedAt = new Date()): MessageDoc =>
    acceptedMessage({ id: `msg_${(++n).toString(16).padStart(32, '0')}`, projectId: project, email, userId, emailKey, acceptedAt });

  /** A message as the trigger handler writes it: stored, listed, counted, then its attempts recorded. */
  async function accept(m: MessageDoc, outcomes: Array<'sent' | 'deferred' | 'bounced'>): Promise<MessageDoc> {
    await store.insertNew([m]);
    await lists.accepted(m, 'new');
    rollups.count(m.projectId, 'queued', m.acceptedAt);
    for (const [i, event] of outcomes.entries()) await timeline.recordAttempt(m, i + 1, { event, smtp: { code: 250, response: 'OK' } });
    return m;
  }

  const get = async (path: string) => {
    const started = performance.now();
    // A token per call: one taken before seeding would expire (60 s) on a loaded machine.
    const res = await call(url, 'GET', `/internal/projects/${path}`, { auth: await internalAuthorization('mailer') });
    return { ...res, ms: performance.now() - started };
  };

  beforeAll(async () => {
    db = await connectDb({ url: defaultMongoUrl(), dbName: uniqueDbName('t') });
    store = new MessageStore(db);
    lists = new MessageLists(db);
    rollups = new StatusRollups(db, 'test-instance');
    const retries = new RetryQueue(db);
    await Promise.all([store.init(), lists.init(), rollups.init(), retries.init()]);
    const publisher = { publish: () => Promise.resolve('id') } as unknown as Publisher;
    timeline = new Timeline(store, publisher, retries, { maxAttempts: 3, baseMs: 60_000, maxMs: 60_000 }, async (m, e) => {
      if (e.event === 'deferred' && e.attempt !== 1) return;
      rollups.count(m.projectId, e.event as 'sent', e.at);
      await lists.reached(m, e.event as 'sent', e.at);
    });
    ({ server, url } = await startMessageLogServer(
      { store, lists, rollups, suppressions: new Suppressions(db, (email) => `hash of ${email}`) },
      logger,
    ));
    const seeded = await seedMessages({ store, lists, rollups }, { projectId: busy, count: BIG, recipients: 50, days: 10 });
    busyMessageId = seeded.ids.messageId;
  }, 600_000);

  afterAll(async () => {
    if (server) await closeServer(server);
    await db?.dropDatabase();
    await db?.close();
  });

  it('14.1 message reads stay point reads: one message, and list pages by every filter, answer under QUERY_AUDIT=strict', async () => {
    const ann = await accept(message('ann@example.org', 'u-ann', 'welcome'), ['sent']);
    const bob = await accept(message('bob@example.org', null, 'receipt'), ['deferred', 'deferred', 'sent']);
    const cat = await accept(message('cat@example.org', 'u-cat', 'receipt'), ['bounced']);
    const ann2 = await accept(message('ann@example.org', 'u-ann', 'receipt'), ['deferred']);
    await timeline.recordEngagement(ann, 'opened', new Date());
    await timeline.recordEngagement(ann, 'clicked', new Date(), { url: 'https://shop.example/a' });
    await timeline.recordEngagement(ann, 'opened', new Date());

    const one = await get(`${project}/messages/${ann._id}`);
    expect(one.status).toBe(200);
    expect(one.body).toMatchObject({ id: ann._id, status: 'sent', opens: 2, clicks: 1 });
    expect(one.body.timeline.map((e: { event: string }) => e.event)).toEqual(['queued', 'sent', 'opened', 'clicked']);
    const deferredThenSent = await get(`${project}/messages/${bob._id}`);
    expect(deferredThenSent.body.timeline.map((e: { event: string }) => e.event)).toEqual(['queued', 'deferred', 'deferred', 'sent']);
    expect((await get(`${project}/messages/${busyMessageId}`)).status).toBe(404); // another project's

    const ids = async (query: string) => {
      const res = await get(`${project}/messages?${query}`);
      expect(res.status).toBe(200);
      return (res.body.data as Array<{ id: string }>).map((m) => m.id);
    };
    expect(await ids('')).toEqual([ann2, cat, bob, ann].map((m) => m._id));
    expect(await ids('email=ANN@example.org')).toEqual([ann2, ann].map((m) => m._id));
    expect(await ids('user_id=u-cat')).toEqual([cat._id]);
    expect(await ids('email_key=receipt')).toEqual([ann2, cat, bob].map((m) => m._id));
    expect(await ids('status=sent')).toEqual([bob, ann].map((m) => m._id));
    expect(await ids('status=deferred')).toEqual([ann2._id]); // bob was deferred, and is sent now
    expect(await ids('status=bounced&email_key=receipt')).toEqual([cat._id]);
    expect(await ids('email=ann@example.org&status=deferred')).toEqual([ann2._id]);
    expect(await ids(`from=${new Date(Date.now() - 60_000).toISOString()}&to=${new Date().toISOString()}`)).toHaveLength(4);
    expect(await ids(`to=${new Date(Date.now() - 60_000).toISOString()}`)).toEqual([]);

    // Cursor paging: two at a time, then the rest; a foreign cursor is a 422.
    const first = await get(`${project}/messages?limit=2`);
    expect(first.body.data.map((m: { id: string }) => m.id)).toEqual([ann2._id, cat._id]);
    const second = await get(`${project}/messages?limit=2&cursor=${first.body.next_cursor}`);
    expect(second.body.data.map((m: { id: string }) => m.id)).toEqual([bob._id, ann._id]);
    expect(second.body.next_cursor).toBeNull();
    expect((await get(`${project}/messages?cursor=${Buffer.from('2026-01-01T00:00:00.000Z|msg_1').toString('base64url')}`)).status).toBe(
      422,
    );

    // The audit is on: the queries the old log made (a find by project, by messageId) fail the same request path.
    await expect(onRequestPath('strict', () => db.model('Message').find({ projectId: project }).exec())).rejects.toThrow(
      UnboundedQueryError,
    );
    await expect(
      onRequestPath('strict', () =>
        db
          .model('MessageEvent')
          .find({ messageId: { $in: [ann._id] } })
          .exec(),
      ),
    ).rejects.toThrow(UnboundedQueryError);
  });

  it(`14.1 next to ${BIG.toLocaleString('en')} messages of another project, a message read and a list page cost the same few point reads`, async () => {
    // What a read costs is counted in queries, not timed (a shared machine's timings are the bench's
    // business): every query a point read or an insert, and as many for the busy project as for a small one.
    const cost = async (path: string) => {
      const recorded = recordQueries(['messages', 'message_events', 'message_summaries', 'message_lists', 'message_rollups']);
      const started = performance.now();
      try {
        const res = await get(path);
        expect(res.status).toBe(200);
      } finally {
        recorded.stop();
      }
      const scans = recorded.queries.filter((q) => !isPointFilter(q.filter));
      expect(scans).toEqual([]);
      return { queries: recorded.queries.length, ms: performance.now() - started };
    };
    const ownId = (await get(`${project}/messages?limit=1`)).body.data[0].id as string;
    const reads = {
      'own message': await cost(`${project}/messages/${ownId}`),
      'busy message': await cost(`${busy}/messages/${busyMessageId}`),
      'page of 20': await cost(`${busy}/messages?limit=20`),
      'by recipient': await cost(`${busy}/messages?limit=20&email=user7@seed.example`),
      'by status': await cost(`${busy}/messages?limit=20&status=sent`),
      'stats of a year': await cost(`${busy}/messages/stats?from=2026-01-01&to=2026-12-31`),
    };
    console.log(
      `at ${BIG} messages: ${Object.entries(reads)
        .map(([name, r]) => `${name} ${r.queries} queries, ${r.ms.toFixed(1)} ms`)
        .join('; ')}`,
    );
    // One message: itself, its delivery events and engagement entries probed by _id (a handful).
    expect(reads['busy message'].queries).toBeLessThanOrEqual(reads['own message'].queries + 2);
    expect(reads['busy message'].queries).toBeLessThanOrEqual(12);
    // A page of 20: the list's head probed, 20 entries, then each message's own handful (the hot window may save some).
    for (const name of ['page of 20', 'by recipient', 'by status'] as const) expect(reads[name].queries).toBeLessThanOrEqual(20 * 10 + 20);
    // A page of 20 finished messages: the list's head, its 20 entries, then one summary a message.
    for (const name of ['page of 20', 'by recipient'] as const) expect(reads[name].queries).toBeLessThanOrEqual(20 + 20 + 5);
    // A year of stats: a few shard probes a month.
    expect(reads['stats of a year'].queries).toBeLessThanOrEqual(12 * 6);
  }, 120_000);

  it('46.2 a message stored to be delivered now reads without a probe of its timeline until its first outcome is written', async () => {
    const m = message('cy@example.org', null);
    await store.insertNew([m]);
    await lists.accepted(m, 'new');
    /** A read of the message, with the queries it made. */
    const readCounted = async () => {
      const recorded = recordQueries(['messages', 'message_events', 'message_summaries']);
      try {
        return { res: await get(`${project}/messages/${m._id}`), queries: recorded.queries };
      } finally {
        recorded.stop();
      }
    };
    const queued = await readCounted();
    expect(queued.res.status).toBe(200);
    expect(queued.res.body).toMatchObject({ id: m._id, status: 'queued' });
    // Nothing to read: this process holds the message, and nothing can precede its first outcome.
    expect(queued.queries).toEqual([]);
    await timeline.recordAttempt(m, 1, { event: 'sent', smtp: { code: 250, response: 'OK' } });
    const sent = await readCounted();
    expect(sent.res.body.status).toBe('sent');
    expect((sent.res.body.timeline as Array<{ event: string }>).map((e) => e.event)).toContain('sent');
    // The summary it kept when the delivery ended is remembered for the reads that follow at once.
    expect(sent.queries).toEqual([]);
    // A summary written anew (an open) is read back from the database, never the one remembered.
    expect(await timeline.recordEngagement(m, 'opened', new Date())).toBe(true);
    const opened = await readCounted();
    expect(opened.res.body).toMatchObject({ status: 'sent', opened: true, opens: 1 });
    expect(opened.queries.map((q) => q.collection)).toEqual(['message_summaries']);
  });

  it('14.3 message counts by status per UTC day come from rollups, summed over every instance that counted', async () => {
    const other = new StatusRollups(db, 'another-instance');
    const day = '2026-03-04';
    for (let i = 0; i < 3; i++) rollups.count(project, 'sent', new Date(`${day}T10:00:00Z`));
    other.count(project, 'sent', new Date(`${day}T23:59:59Z`));
    other.count(project, 'bounced', new Date(`${day}T00:00:00Z`));
    other.count(project, 'sent', new Date('2026-03-05T00:00:00Z'));
    await Promise.all([rollups.flush(), other.flush()]);
    const res = await get(`${project}/messages/stats?from=2026-03-03&to=2026-03-05`);
    expect(res.status).toBe(200);
    expect(
      res.body.data.map((d: { day: string; counts: Record<string, number> }) => [d.day, d.counts['sent'], d.counts['bounced']]),
    ).toEqual([
      ['2026-03-03', 0, 0],
      ['2026-03-04', 4, 1],
      ['2026-03-05', 1, 0],
    ]);
    expect(Object.keys(res.body.data[0].counts).sort()).toEqual([
      'bounced',
      'canceled',
      'deferred',
      'failed',
      'queued',
      'scheduled',
      'sent',
      'suppressed',
    ]);
    // Seeded: 20,000 accepted and sent over the last ten days.
    const today = new Date().toISOString().slice(0, 10);
    const tenDaysAgo = new Date(Date.now() - 11 * 86_400_000).toISOString().slice(0, 10);
    const busyDays = (await get(`${busy}/messages/stats?from=${tenDaysAgo}&to=${today}`)).body.data as Array<{
      counts: { queued: number };
    }>;
    expect(busyDays.reduce((sum, d) => sum + d.counts.queued, 0)).toBe(BIG);
    expect((await get(`${project}/messages/stats?from=2026-03-05&to=2026-03-04`)).status).toBe(400);
    expect((await get(`${project}/messages/stats?from=2024-01-01&to=2026-01-01`)).status).toBe(400);
  });

  it('14.2 retention deletes messages past MESSAGE_RETENTION_DAYS with their timelines and list entries, in chunks', async () => {
    const aged = '0000000000000000000000c3';
    const old = await seedMessages(
      { store, lists, rollups },
      { projectId: aged, count: 450, recipients: 3, days: 5, now: new Date(Date.now() - 50 * 86_400_000) },
    );
    const fresh = await seedMessages({ store, lists, rollups }, { projectId: aged, count: 20, recipients: 3, days: 1 });
    const listed = (await lists.page(listNames.project(aged), { limit: 1_000 })).entries.map((e) => e.value);
    const people = new Set([...(await store.messagesById(listed)).values()].flatMap(personListsOf));
    expect(people.size).toBe(6); // three recipients, three user ids
    const schedule = new ScheduleQueue(db);
    await schedule.init();
    const retention = new MessageRetention({
      store,
      lists,
      attachments: new AttachmentStore(db),
      schedule,
      logger,
      retentionDays: 45,
      intervalMs: 3_600_000,
    });
    const purged = await retention.purge();
    expect(purged).toMatchObject({ messages: 450 });
    expect(purged.events).toBe(450 * 3); // sent, opened, clicked
    expect((await get(`${aged}/messages/${old.ids.messageId}`)).status).toBe(404);
    expect((await get(`${aged}/messages/${fresh.ids.messageId}`)).status).toBe(200);
    const page = await get(`${aged}/messages?limit=100`);
    expect(page.body.data).toHaveLength(20);
    expect(page.body.next_cursor).toBeNull();
    expect((await get(`${aged}/messages?limit=100&email=${old.ids.email}`)).body.data).toHaveLength(
      fresh.ids.email === old.ids.email ? 7 : 0,
    );
    // The recipients' and users' lists (not registered: one per person) were trimmed with their messages.
    const cutoff = Date.now() - 45 * 86_400_000;
    for (const person of people) {
      const left = (await lists.page(person, { limit: 1_000 })).entries;
      expect(left.length).toBeGreaterThan(0); // the fresh messages go to the same three recipients
      expect(left.filter((e) => e.at.getTime() <= cutoff)).toEqual([]);
    }
    const registered = await db
      .collection('message_lists')
      .find({ _id: { $regex: '^~lists~' } } as never)
      .toArray();
    expect(registered.filter((entry) => /:[ru]:/.test(String(entry['v'])))).toEqual([]);
    // The busy project's messages are inside the window: untouched.
    expect((await get(`${busy}/messages/${busyMessageId}`)).status).toBe(200);
    expect(await retention.purge()).toMatchObject({ messages: 0 });
  }, 600_000);
});
