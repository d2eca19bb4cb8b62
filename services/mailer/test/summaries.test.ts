import { connectDb, type Connection } from '@postbus/db';
import { defaultMongoUrl, uniqueName } from '@postbus/testing';
import type { EventDoc } from '../src/domain/message-records';
import { summaryOf } from '../src/domain/message-view';
import { MessageStore } from '../src/model/message.repository';
import { acceptedMessage } from './accepted-message';

/** Message summaries against the real MongoDB-wire server, where two writers of one summary race. */
describe('message summaries', () => {
  let db: Connection;
  let store: MessageStore;
  const projectId = 'p-summaries';

  beforeAll(async () => {
    db = await connectDb({ url: defaultMongoUrl(), dbName: uniqueName('t').replace(/-/g, '_') });
    store = new MessageStore(db);
    await store.init();
  });

  afterAll(async () => {
    await db?.dropDatabase();
    await db?.close();
  });

  const entry = (messageId: string, sequence: number, event: EventDoc['event']): EventDoc => ({
    _id: `${messageId}:${sequence}`,
    messageId,
    projectId,
    event,
    sequence,
    at: new Date(),
  });

  it("a report's summary written as the attempt's summary is kept wins, and never fails", async () => {
    // The attempt keeps its summary (sent) as a bounce report replaces it (sent, bounced): an upsert
    // that finds nothing at that moment collides with the insert (ci2's E11000 on feedback.bounce).
    const messages = Array.from({ length: 40 }, (_, i) => acceptedMessage({ id: `msg_race${i}`, projectId, email: `r${i}@example.org` }));
    const sent = (id: string) => entry(id, 2, 'sent');
    const reported = await Promise.allSettled(
      messages.flatMap((m) => [
        store.keepSummaries([summaryOf(m, [sent(m._id)])]),
        store.replaceSummary(summaryOf(m, [sent(m._id), entry(m._id, 3, 'bounced')])),
      ]),
    );
    expect(reported.filter((r) => r.status === 'rejected')).toEqual([]);
    for (const m of messages) expect((await store.summary(projectId, m._id))?.status).toBe('bounced');
  });
});
