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

  beforeAll(async () => {
    db = await connectDb({ url: defaultMongoUrl(), dbName: uniqueName('t').replace(/-/g, '_') });
    store = new MessageStore(db);
    const retries = new RetryQueue(db);
    suppressions = new Suppressions(db, (email) => createHmac('sha256', 'the audit key of this test').update(email).digest('hex'));
    await Promise.all([store.init(), retries.init(), suppressions.init()]);
    const publisher = { publish: (_t: string, _type: string, _k: string, _d: unknown, o: { id: string }) => Promise.resolve(o.id) };
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
});
