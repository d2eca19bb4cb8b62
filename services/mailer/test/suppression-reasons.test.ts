import { createHmac } from 'node:crypto';
import type { Server } from 'node:http';
import type { Publisher } from '@postbus/bus';
import type { EmailUnsuppressCommand, Suppression, SuppressionReason } from '@postbus/contracts';
import { connectDb, isPointFilter, recordQueries, type Connection } from '@postbus/db';
import { closeServer } from '@postbus/http';
import { createLogger } from '@postbus/logger';
import { call, defaultMongoUrl, internalAuthorization, uniqueDbName } from '@postbus/testing';
import { feedbackPath } from '../src/start/consumers';
import type { Feedback } from '../src/domain/feedback';
import type { MessageDoc } from '../src/domain/message-records';
import type { SuppressionList } from '../src/domain/suppression-list';
import { Timeline } from '../src/domain/timeline';
import { MessageLists } from '../src/model/message-list.repository';
import { MessageStore } from '../src/model/message.repository';
import { RetryQueue } from '../src/model/retry.repository';
import { StatusRollups } from '../src/model/rollup.repository';
import { Suppressions } from '../src/model/suppression.repository';
import { acceptedMessage } from './accepted-message';
import { startMessageLogServer } from './message-log-server';

/**
 * Issue 45.6 on the real MongoDB-wire server: an address keeps every reason it is suppressed for,
 * and a complaint, first or later, is never lifted by the client — not even one that comes between
 * the gateway's check of a DELETE and the mailer's lift.
 */
describe('the reasons of a suppressed address', () => {
  let db: Connection;
  let suppressions: Suppressions;
  let suppressionList: SuppressionList;
  let feedback: Feedback;
  let store: MessageStore;
  let timeline: Timeline;
  let rollups: StatusRollups;
  let server: Server | undefined;
  let url: string;
  const published: Array<{ type: string; id: string; data: { email?: string; reason?: string } }> = [];
  const P = 'p-suppression-reasons';
  const at = (minute: number) => new Date(Date.UTC(2026, 10, 27, 9, minute));
  const hashAddress = (email: string) => createHmac('sha256', 'the erasure audit key of this test').update(email).digest('hex');
  const logger = createLogger({ service: 'mailer-test', level: 'error' });

  beforeAll(async () => {
    db = await connectDb({ url: defaultMongoUrl(), dbName: uniqueDbName('t') });
    store = new MessageStore(db);
    const retries = new RetryQueue(db);
    const lists = new MessageLists(db);
    suppressions = new Suppressions(db, hashAddress);
    rollups = new StatusRollups(db, 'suppression-reasons', 60_000);
    await Promise.all([store.init(), retries.init(), lists.init(), suppressions.init(), rollups.init()]);
    const publisher = {
      publish: (_topic: string, type: string, _key: string, data: { email?: string; reason?: string }, options: { id: string }) => {
        published.push({ type, id: options.id, data });
        return Promise.resolve(options.id);
      },
    } as unknown as Publisher;
    timeline = new Timeline(store, publisher, retries, { maxAttempts: 3, baseMs: 1000, maxMs: 10_000 });
    ({ feedback, suppressionList } = feedbackPath(
      { store, timeline, suppressions, lists, rollups, publisher },
      { SOFT_BOUNCE_LIMIT: 5, FEEDBACK_RATE_WHILE_SENDING: 50 },
    ));
    ({ server, url } = await startMessageLogServer({ store, lists, rollups, suppressions }, logger));
  });

  afterAll(async () => {
    if (server) await closeServer(server);
    await rollups?.stop();
    await db?.dropDatabase();
    await db?.close();
  });

  let n = 0;
  /** What the gateway reads before it accepts a DELETE: the mailer's internal API, filtered by the address. */
  const asTheGatewayReads = async (email: string): Promise<Suppression | undefined> => {
    const res = await call(url, 'GET', `/internal/projects/${P}/suppressions?email=${encodeURIComponent(email)}&limit=1`, {
      auth: await internalAuthorization('mailer'),
    });
    expect(res.status).toBe(200);
    return (res.body as { data: Suppression[] }).data[0];
  };
  /** The `email.unsuppress` the gateway queues after its check, as the mailer handles it. */
  const lift = (email: string, resubscribe = false) => {
    const command: EmailUnsuppressCommand = {
      projectId: P,
      email,
      acceptedAt: at(59).toISOString(),
      ...(resubscribe ? { resubscribe } : {}),
    };
    return suppressionList.lift(command, `cmd-${++n}`);
  };
  const block = (email: string, reason: SuppressionReason, minute: number, messageId?: string) =>
    suppressionList.block([{ projectId: P, email, reason, at: at(minute), ...(messageId ? { messageId } : {}) }]);
  const reasonsOf = (s: Suppression | null | undefined) => s?.reasons.map((cause) => cause.reason);
  /** Why a send to the address is suppressed: the trigger path's answer. */
  const sendSays = async (email: string) => (await suppressions.reasons([{ projectId: P, email }]))[0];
  const deletedAnnouncements = (email: string) => published.filter((p) => p.type === 'suppression.deleted' && p.data.email === email);

  it('a manual suppression, then a complaint: the gateway reads the complaint (its DELETE is a 409), and a lift changes nothing', async () => {
    await block('manual-then-angry@example.org', 'manual', 1);
    await block('manual-then-angry@example.org', 'complaint', 2, 'msg_angry');

    const read = await asTheGatewayReads('manual-then-angry@example.org');
    expect(read).toEqual({
      email: 'manual-then-angry@example.org',
      reason: 'complaint',
      created_at: at(1).toISOString(),
      message_id: 'msg_angry',
      reasons: [
        { reason: 'manual', created_at: at(1).toISOString(), message_id: null },
        { reason: 'complaint', created_at: at(2).toISOString(), message_id: 'msg_angry' },
      ],
    });
    // Had the DELETE been accepted anyway (an older gateway), the mailer still lifts nothing.
    await lift('manual-then-angry@example.org');
    expect(await sendSays('manual-then-angry@example.org')).toBe('complaint');
    expect(reasonsOf(await suppressions.current(P, 'manual-then-angry@example.org'))).toEqual(['manual', 'complaint']);
    expect(deletedAnnouncements('manual-then-angry@example.org')).toEqual([]);
  });

  it('a hard bounce, then a complaint about another message: the address keeps both, each with its message and time', async () => {
    const sent = async (email: string): Promise<MessageDoc> => {
      const message = acceptedMessage({ id: `msg_reasons_${++n}`, projectId: P, email });
      await store.insertNew([message]);
      await timeline.recordAttempt(message, 1, { event: 'sent', smtp: { code: 250, response: 'relay' } });
      return message;
    };
    const bounced = await sent('bounced-then-angry@example.org');
    const complainedAbout = await sent('bounced-then-angry@example.org');
    await feedback.bounce({
      messageId: bounced._id,
      class: 'hard',
      action: 'failed',
      format: 'rfc3464',
      status: '5.1.1',
      diagnosticCode: 'smtp; 550 5.1.1 no such user',
      at: at(10).toISOString(),
    });
    await feedback.complaint({ messageId: complainedAbout._id, feedbackType: 'abuse', at: at(11).toISOString() });

    const read = await suppressions.current(P, 'bounced-then-angry@example.org');
    expect(read).toMatchObject({ reason: 'complaint', created_at: at(10).toISOString(), message_id: complainedAbout._id });
    expect(read?.reasons).toEqual([
      { reason: 'hard_bounce', created_at: at(10).toISOString(), message_id: bounced._id },
      { reason: 'complaint', created_at: at(11).toISOString(), message_id: complainedAbout._id },
    ]);
    expect(await sendSays('bounced-then-angry@example.org')).toBe('complaint');
    // Listed once, found by either of its reasons.
    const page = await suppressions.page(P, { limit: 50 });
    expect(page.data.filter((s) => s.email === 'bounced-then-angry@example.org')).toHaveLength(1);
    for (const reason of ['hard_bounce', 'complaint'] as const)
      expect((await suppressions.page(P, { limit: 50, reason })).data.map((s) => s.email)).toContain('bounced-then-angry@example.org');
    expect((await suppressions.page(P, { limit: 50, reason: 'manual' })).data.map((s) => s.email)).not.toContain(
      'bounced-then-angry@example.org',
    );
  });

  it('a complaint stored after the gateway checked the DELETE, before the mailer lifts: the suppression stays', async () => {
    await block('raced@example.org', 'manual', 20);
    // The gateway's check: no complaint yet, so the DELETE is accepted and email.unsuppress queued.
    expect(reasonsOf(await asTheGatewayReads('raced@example.org'))).toEqual(['manual']);
    await block('raced@example.org', 'complaint', 21, 'msg_raced');

    await lift('raced@example.org');
    expect(await sendSays('raced@example.org')).toBe('complaint');
    expect(reasonsOf(await asTheGatewayReads('raced@example.org'))).toEqual(['manual', 'complaint']);
    expect(deletedAnnouncements('raced@example.org')).toEqual([]);
  });

  it('a complaint stored while the lift runs (after it read the address, before it deleted the block) is put back', async () => {
    await block('during@example.org', 'hard_bounce', 30, 'msg_bounced');
    const readByTheLift = await suppressions.blocking(P, 'during@example.org');
    expect(readByTheLift?.causes.map((c) => c.reason)).toEqual(['hard_bounce']);
    await block('during@example.org', 'complaint', 31, 'msg_during');

    const { kept } = await suppressions.unblock(P, 'during@example.org', readByTheLift);
    expect(kept).toMatchObject({ reason: 'complaint', messageId: 'msg_during' });
    expect(await sendSays('during@example.org')).toBe('complaint');
    // The bounce the client lifted is gone; the complaint is listed anew, once.
    expect(reasonsOf(await suppressions.current(P, 'during@example.org'))).toEqual(['complaint']);
    expect((await suppressions.page(P, { limit: 50 })).data.filter((s) => s.email === 'during@example.org')).toEqual([
      expect.objectContaining({ reason: 'complaint', created_at: at(31).toISOString(), message_id: 'msg_during' }),
    ]);
  });

  it('a complaint whose addition to the block was overwritten by a concurrent write still shows, and a lift restores it', async () => {
    await block('overwritten@example.org', 'manual', 40);
    await block('overwritten@example.org', 'complaint', 41, 'msg_overwritten');
    // The embedded store reads and rewrites a document to update it: a concurrent writer may drop what another just added.
    const blockId = `${P}:block:overwritten@example.org`;
    await db.collection('suppressions').updateOne({ _id: blockId } as never, { $set: { reasons: [{ reason: 'manual', at: at(40) }] } });
    expect(await sendSays('overwritten@example.org')).toBe('manual');

    expect((await asTheGatewayReads('overwritten@example.org'))?.reason).toBe('complaint');
    await lift('overwritten@example.org');
    expect(await sendSays('overwritten@example.org')).toBe('complaint');
    expect(reasonsOf(await suppressions.current(P, 'overwritten@example.org'))).toEqual(['manual', 'complaint']);
    expect(deletedAnnouncements('overwritten@example.org')).toEqual([]);
  });

  it('without a complaint the lift removes every reason the address has', async () => {
    await block('liftable@example.org', 'manual', 45);
    await block('liftable@example.org', 'hard_bounce', 46, 'msg_liftable');
    expect(reasonsOf(await suppressions.current(P, 'liftable@example.org'))).toEqual(['manual', 'hard_bounce']);
    await lift('liftable@example.org');
    expect(await suppressions.current(P, 'liftable@example.org')).toBeNull();
    expect(await sendSays('liftable@example.org')).toBeUndefined();
    expect(deletedAnnouncements('liftable@example.org')).toEqual([
      expect.objectContaining({ data: expect.objectContaining({ reason: 'manual' }) }),
    ]);
  });

  it('a suppression stored with one reason, before reasons accumulated, reads as a list of one and takes more', async () => {
    const email = 'stored-before@example.org';
    await db.collection('suppressed_addresses').insertOne({ _id: `${P}:${hashAddress(email)}` } as never);
    await db.collection('suppressions').insertMany([
      { _id: `${P}:block:${email}`, projectId: P, email, reason: 'hard_bounce', at: at(50), messageId: 'msg_old', entry: 'entry-old' },
      { _id: `${P}:entry:entry-old`, projectId: P, email, reason: 'entry', at: at(50) },
    ] as never[]);
    expect(await asTheGatewayReads(email)).toEqual({
      email,
      reason: 'hard_bounce',
      created_at: at(50).toISOString(),
      message_id: 'msg_old',
      reasons: [{ reason: 'hard_bounce', created_at: at(50).toISOString(), message_id: 'msg_old' }],
    });
    expect(await sendSays(email)).toBe('hard_bounce');

    await block(email, 'complaint', 51, 'msg_new');
    expect((await asTheGatewayReads(email))?.reasons).toEqual([
      { reason: 'hard_bounce', created_at: at(50).toISOString(), message_id: 'msg_old' },
      { reason: 'complaint', created_at: at(51).toISOString(), message_id: 'msg_new' },
    ]);
    expect(await sendSays(email)).toBe('complaint');
  });

  it('a plain send still costs one point read for its suppression check; a suppressed address the same reads whatever its reasons', async () => {
    await block('one-reason@example.org', 'hard_bounce', 55);
    for (const [i, reason] of (['manual', 'hard_bounce', 'complaint'] as const).entries())
      await block('three-reasons@example.org', reason, 56 + i);
    const checked = async (email: string) => {
      const recorded = recordQueries(['suppressions', 'suppressed_addresses']);
      try {
        return { reason: await sendSays(email), queries: recorded.queries };
      } finally {
        recorded.stop();
      }
    };
    const plain = await checked('never-suppressed@example.org');
    expect(plain.reason).toBeUndefined();
    expect(plain.queries).toEqual([expect.objectContaining({ collection: 'suppressed_addresses', method: 'findOne' })]);
    expect(plain.queries.every((q) => isPointFilter(q.filter))).toBe(true);

    const one = await checked('one-reason@example.org');
    const three = await checked('three-reasons@example.org');
    expect([one.reason, three.reason]).toEqual(['hard_bounce', 'complaint']);
    expect(three.queries.every((q) => isPointFilter(q.filter))).toBe(true);
    expect(three.queries).toHaveLength(one.queries.length);
  });
});
