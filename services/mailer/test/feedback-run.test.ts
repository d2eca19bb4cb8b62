import { createHmac } from 'node:crypto';
import type { Publisher } from '@postbus/bus';
import type { FeedbackBounceEvent } from '@postbus/contracts';
import { connectDb, isPointFilter, recordQueries, type Connection } from '@postbus/db';
import { defaultMongoUrl, uniqueDbName } from '@postbus/testing';
import { feedbackPath } from '../src/start/consumers';
import type { Feedback } from '../src/domain/feedback';
import { Timeline } from '../src/domain/timeline';
import { MessageLists } from '../src/model/message-list.repository';
import { MessageStore } from '../src/model/message.repository';
import { statusOf } from '../src/domain/message-status';
import type { MessageDoc } from '../src/domain/message-records';
import { RetryQueue } from '../src/model/retry.repository';
import { StatusRollups } from '../src/model/rollup.repository';
import { Suppressions } from '../src/model/suppression.repository';
import { acceptedMessage } from './accepted-message';

/** Issue 33.7: a run of delivery reports recorded together on the real MongoDB-wire server, as the one-by-one path records them. */
describe('a run of bounce reports', () => {
  let db: Connection;
  let store: MessageStore;
  let timeline: Timeline;
  let suppressions: Suppressions;
  let rollups: StatusRollups;
  let feedback: Feedback;
  const published: Array<{ type: string; id: string }> = [];
  const P = 'p-feedback-run';

  beforeAll(async () => {
    db = await connectDb({ url: defaultMongoUrl(), dbName: uniqueDbName('t') });
    store = new MessageStore(db);
    const retries = new RetryQueue(db);
    const lists = new MessageLists(db);
    suppressions = new Suppressions(db, (email) => createHmac('sha256', 'the audit key of this test').update(email).digest('hex'));
    rollups = new StatusRollups(db, 'feedback-run', 60_000);
    await Promise.all([store.init(), retries.init(), lists.init(), suppressions.init(), rollups.init()]);
    const publisher = {
      publish: (_topic: string, type: string, _key: string, _data: unknown, options: { id: string }) => {
        published.push({ type, id: options.id });
        return Promise.resolve(options.id);
      },
    } as unknown as Publisher;
    timeline = new Timeline(store, publisher, retries, { maxAttempts: 3, baseMs: 1000, maxMs: 10_000 });
    const config = { SOFT_BOUNCE_LIMIT: 2, FEEDBACK_RATE_WHILE_SENDING: 50 };
    ({ feedback } = feedbackPath({ store, timeline, suppressions, lists, rollups, publisher }, config));
  });

  afterAll(async () => {
    await rollups?.stop();
    await db?.dropDatabase();
    await db?.close();
  });

  let n = 0;
  const sent = async (email: string, event: 'sent' | 'bounced' = 'sent'): Promise<MessageDoc> => {
    const message = acceptedMessage({ id: `msg_run_${++n}`, projectId: P, email });
    await store.insertNew([message]);
    await timeline.recordAttempt(message, 1, { event, smtp: { code: event === 'sent' ? 250 : 550, response: 'relay' } });
    return message;
  };
  const report = (message: MessageDoc, hard: boolean): FeedbackBounceEvent => ({
    messageId: message._id,
    class: hard ? 'hard' : 'soft',
    action: hard ? 'failed' : 'delayed',
    format: 'rfc3464',
    status: hard ? '5.1.1' : '4.2.0',
    diagnosticCode: hard ? 'smtp; 550 5.1.1 no such user' : 'smtp; 450 4.2.0 mailbox busy',
    at: new Date().toISOString(),
  });
  const events = async (message: MessageDoc) => (await store.timeline(message._id)).map((e) => e.event);

  it('bounces, suppresses and counts each message once, leaves repeats to the one-by-one path, and adds nothing when redelivered', async () => {
    const gone = await sent('gone@example.org');
    const alsoGone = await sent('also-gone@example.org');
    const refused = await sent('refused@example.org', 'bounced');
    const busy = await sent('busy@example.org');
    const busyAgain = await sent('busy@example.org');
    const run = [
      report(gone, true),
      report(alsoGone, true),
      report(gone, true), // the same report again
      report(refused, true),
      report(busy, false),
      report(busyAgain, false), // a second message to an address of the run
    ];
    published.length = 0;
    const left = await feedback.bounces(run);
    expect(left).toEqual([2, 5]);
    for (const i of left) await feedback.bounce(run[i]!);

    expect(await events(gone)).toEqual(['sent', 'bounced']);
    expect(await events(alsoGone)).toEqual(['sent', 'bounced']);
    expect(await events(refused)).toEqual(['bounced']); // refused by the relay: the report adds nothing
    expect(await events(busy)).toEqual(['sent', 'soft_bounced']);
    expect(await events(busyAgain)).toEqual(['sent', 'soft_bounced']);
    expect(statusOf(await store.timeline(gone._id))).toBe('bounced');
    expect((await store.summary(P, gone._id))?.status).toBe('bounced');
    const reasons = await suppressions.reasons(
      ['gone@example.org', 'also-gone@example.org', 'refused@example.org', 'busy@example.org'].map((email) => ({ projectId: P, email })),
    );
    // Two soft-bounced messages to busy@ reach this test's limit of 2.
    expect(reasons).toEqual(['hard_bounce', 'hard_bounce', 'hard_bounce', 'soft_bounce_limit']);
    const bounced = published.filter((p) => p.type === 'message.bounced');
    expect(bounced.map((p) => p.id).sort()).toEqual([`${alsoGone._id}:3`, `${gone._id}:3`].sort());
    const created = new Set(published.filter((p) => p.type === 'suppression.created').map((p) => p.id));
    expect(created.size).toBe(4);
    expect(published.filter((p) => p.type === 'message.soft_bounced')).toHaveLength(2);

    // The whole run again (a consumer that died before committing): nothing new is stored or emitted.
    published.length = 0;
    const again = await feedback.bounces(run);
    for (const i of again) await feedback.bounce(run[i]!);
    expect(await events(gone)).toEqual(['sent', 'bounced']);
    expect(await events(busy)).toEqual(['sent', 'soft_bounced']);
    expect(published.filter((p) => p.type.startsWith('message.'))).toEqual([]);
    expect(published.filter((p) => p.type === 'suppression.created').every((p) => created.has(p.id))).toBe(true);
  });

  it("a report naming a cc or bcc address suppresses that copy's address (when hard) and is kept as its copy report, never bouncing the message, in a run and alone", async () => {
    const withCopies = async (email: string): Promise<MessageDoc> => {
      const message = { ...acceptedMessage({ id: `msg_run_${++n}`, projectId: P, email }), cc: [`cc-${email}`], bcc: [`bcc-${email}`] };
      await store.insertNew([message]);
      await timeline.recordAttempt(message, 1, { event: 'sent', smtp: { code: 250, response: 'relay' } });
      return message;
    };
    const inRun = await withCopies('kept@example.org');
    const alone = await withCopies('kept-too@example.org');
    published.length = 0;
    const run = [
      { ...report(inRun, true), recipient: 'cc-kept@example.org' },
      { ...report(inRun, false), recipient: 'bcc-kept@example.org' },
    ];
    expect(await feedback.bounces(run)).toEqual([]);
    await feedback.bounce({ ...report(alone, true), recipient: 'bcc-kept-too@example.org' });

    // Kept beside the timeline, not in it: the status and the timeline are the recipient's.
    const summary = await store.summary(P, inRun._id);
    expect(summary).toMatchObject({ status: 'sent', timeline: [{ event: 'queued' }, { event: 'sent' }] });
    expect(summary?.copy_reports?.map((r) => `${r.kind}:${r.email}:${r.event}`).sort()).toEqual([
      'bcc:bcc-kept@example.org:soft_bounced',
      'cc:cc-kept@example.org:bounced',
    ]);
    expect((await store.summary(P, alone._id))?.copy_reports).toEqual([
      expect.objectContaining({ email: 'bcc-kept-too@example.org', kind: 'bcc', event: 'bounced' }),
    ]);
    const reasons = await suppressions.reasons(
      ['kept@example.org', 'cc-kept@example.org', 'bcc-kept@example.org', 'kept-too@example.org', 'bcc-kept-too@example.org'].map(
        (email) => ({ projectId: P, email }),
      ),
    );
    // A copy's one soft bounce counts toward its address's limit, which it does not reach.
    expect(reasons).toEqual([undefined, 'hard_bounce', undefined, undefined, 'hard_bounce']);
    expect(published.map((p) => p.type)).toEqual(['suppression.created', 'suppression.created']);

    // A report naming the recipient, or an address the message was not sent to, is the recipient's as before.
    await feedback.bounce({ ...report(alone, true), recipient: 'forwarded@elsewhere.example' });
    expect(await events(alone)).toEqual(['sent', 'copy_bounced', 'bounced']);
    expect((await store.summary(P, alone._id))?.status).toBe('bounced');
  });

  it('reads and writes a run by _id only, three commands a report: the message, its delivery, its summary (a `$in` read would scan the collection)', async () => {
    const run: FeedbackBounceEvent[] = [];
    for (let i = 0; i < 40; i++) run.push(report(await sent(`dead-${i}@example.org`), true));
    const recorded = recordQueries([
      'messages',
      'message_events',
      'message_summaries',
      'message_lists',
      'suppressions',
      'suppression_lists',
    ]);
    try {
      expect(await feedback.bounces(run)).toEqual([]);
    } finally {
      recorded.stop();
    }
    expect(recorded.queries.filter((q) => !isPointFilter(q.filter))).toEqual([]);
    const perReport = recorded.queries.length / run.length;
    console.log(`a run of ${run.length} hard bounces: ${perReport.toFixed(2)} filtered commands a report`);
    expect(perReport).toBeLessThanOrEqual(3.2);
  });
});
