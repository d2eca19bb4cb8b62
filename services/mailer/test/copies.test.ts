import { createHmac } from 'node:crypto';
import type { Publisher } from '@postbus/bus';
import { connectDb, type Connection } from '@postbus/db';
import { defaultMongoUrl, uniqueName } from '@postbus/testing';
import { messageView } from '../src/domain/message-view';
import { SuppressionList } from '../src/domain/suppression-list';
import { Timeline } from '../src/domain/timeline';
import { MessageStore } from '../src/model/message.repository';
import { RetryQueue } from '../src/model/retry.repository';
import { Suppressions } from '../src/model/suppression.repository';
import { acceptedMessage } from './accepted-message';

/** A message's cc and bcc on the real MongoDB-wire server: its copies checked against the project's suppressions, and what it dropped kept with it. */
describe('a message with copies', () => {
  let db: Connection;
  let store: MessageStore;
  let suppressions: Suppressions;
  let suppressionList: SuppressionList;
  let timeline: Timeline;
  const P = 'p-copies';
  /** The types of the events published on the bus, in order. */
  const published: string[] = [];

  beforeAll(async () => {
    db = await connectDb({ url: defaultMongoUrl(), dbName: uniqueName('t').replace(/-/g, '_') });
    store = new MessageStore(db);
    const retries = new RetryQueue(db);
    suppressions = new Suppressions(db, (email) => createHmac('sha256', 'the audit key of this test').update(email).digest('hex'));
    await Promise.all([store.init(), retries.init(), suppressions.init()]);
    const publisher = {
      publish: (_t: string, type: string, _k: string, _d: unknown, o: { id: string }) => {
        published.push(type);
        return Promise.resolve(o.id);
      },
    };
    suppressionList = new SuppressionList(suppressions, publisher as unknown as Publisher);
    timeline = new Timeline(store, publisher as unknown as Publisher, retries, { maxAttempts: 3, baseMs: 1000, maxMs: 10_000 });
  });

  afterAll(async () => {
    await db?.dropDatabase();
    await db?.close();
  });

  it("finds a suppressed copy's reason by the address alone, and keeps the dropped copies with the message's delivery and summary", async () => {
    await suppressionList.block([{ projectId: P, email: 'blocked-cc@example.org', reason: 'manual', at: new Date() }]);
    // As the mailer's app asks for a message's copies: one reason per address, grouped with concurrent lookups.
    const copies = ['accounts@example.org', 'blocked-cc@example.org', 'archive@example.org'];
    const reasons = await Promise.all(copies.map((email) => suppressions.reasonFor({ projectId: P, email })));
    expect(reasons).toEqual([undefined, 'manual', undefined]);
    // Another project's suppression of the address is not this one's.
    expect(await suppressions.reasonFor({ projectId: 'p-other', email: 'blocked-cc@example.org' })).toBeUndefined();

    const message = {
      ...acceptedMessage({ id: 'msg_copies_1', projectId: P, email: 'buyer@example.org' }),
      cc: ['accounts@example.org', 'blocked-cc@example.org'],
      bcc: ['archive@example.org'],
    };
    await store.insertNew([message]);
    const dropped = [{ email: 'blocked-cc@example.org', kind: 'cc' as const, reason: 'manual' }];
    await timeline.recordAttempt(message, 1, { event: 'sent', smtp: { code: 250, response: '250 OK' }, droppedCopies: dropped });

    // Read back by another process (no hot window): the message, its delivery and its summary.
    const fresh = new MessageStore(db);
    const stored = await fresh.message(P, message._id);
    expect(stored).toMatchObject({ cc: message.cc, bcc: message.bcc });
    const events = await fresh.timeline(message._id);
    expect(events).toEqual([expect.objectContaining({ event: 'sent', droppedCopies: dropped })]);
    expect(messageView(stored!, events)).toMatchObject({ cc: message.cc, bcc: message.bcc, dropped_copies: dropped });
    expect(await fresh.summary(P, message._id)).toMatchObject({
      status: 'sent',
      cc: message.cc,
      bcc: message.bcc,
      dropped_copies: dropped,
    });
  });

  it("keeps what a copy's mail system reported after sending as the message's copy_reports, once per copy and kind; the status, timeline and events stay the recipient's", async () => {
    const message = {
      ...acceptedMessage({ id: 'msg_copies_2', projectId: P, email: 'keeps@example.org' }),
      cc: ['gone-cc@example.org'],
      bcc: ['slow-bcc@example.org'],
    };
    await store.insertNew([message]);
    const delivered = [
      { email: 'gone-cc@example.org', kind: 'cc' as const },
      { email: 'slow-bcc@example.org', kind: 'bcc' as const },
    ];
    await timeline.recordAttempt(message, 1, { event: 'sent', smtp: { code: 250, response: '250 OK' }, deliveredCopies: delivered });
    published.length = 0;
    const at = new Date();
    const bcc = { email: 'slow-bcc@example.org', kind: 'bcc' as const };
    expect(await timeline.recordCopyReport(message, bcc, 'soft_bounced', at, 'soft bounce (delayed 4.2.2)')).toBe(true);
    // Its MTA's second delay notice is counted on the same report.
    expect(await timeline.recordCopyReport(message, bcc, 'soft_bounced', at, 'soft bounce (delayed 4.2.2)')).toBe(false);
    expect(
      await timeline.recordCopyReport(message, { email: 'gone-cc@example.org', kind: 'cc' }, 'bounced', at, 'hard bounce (failed 5.1.1)'),
    ).toBe(true);
    // The recipient's own open still joins the timeline after them.
    expect(await timeline.recordEngagement(message, 'opened', at)).toBe(true);
    expect(published).toEqual(['message.opened']);

    const fresh = new MessageStore(db);
    const view = messageView((await fresh.message(P, message._id))!, await fresh.timeline(message._id));
    const expected = {
      status: 'sent',
      delivered_copies: delivered,
      copy_reports: [
        {
          email: 'slow-bcc@example.org',
          kind: 'bcc',
          event: 'soft_bounced',
          at: at.toISOString(),
          reason: 'soft bounce (delayed 4.2.2)',
          count: 2,
        },
        {
          email: 'gone-cc@example.org',
          kind: 'cc',
          event: 'bounced',
          at: at.toISOString(),
          reason: 'hard bounce (failed 5.1.1)',
          count: 1,
        },
      ],
    };
    expect(view).toMatchObject(expected);
    expect(view.timeline.map((e) => e.event)).toEqual(['queued', 'sent', 'opened']);
    const summary = await fresh.summary(P, message._id);
    expect(summary).toMatchObject(expected);
    expect(summary!.timeline.map((e) => e.event)).toEqual(['queued', 'sent', 'opened']);
  });
});
