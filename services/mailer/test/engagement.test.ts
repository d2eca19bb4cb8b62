import type { Publisher } from '@postbus/bus';
import { connectDb, type Connection } from '@postbus/db';
import { defaultMongoUrl, uniqueName } from '@postbus/testing';
import { messageView } from '../src/domain/message-view';
import { MessageStore } from '../src/model/message.repository';
import { RetryQueue } from '../src/model/retry.repository';
import { Timeline } from '../src/domain/timeline';
import { acceptedMessage } from './accepted-message';

/** Issue 13.6: replayed tracking links are counted, not appended: a timeline stays as long as the email's distinct links. */
describe('opens and clicks on the real MongoDB-wire server', () => {
  let db: Connection;
  let store: MessageStore;
  let timeline: Timeline;
  const emitted: string[] = [];

  beforeAll(async () => {
    db = await connectDb({ url: defaultMongoUrl(), dbName: uniqueName('t').replace(/-/g, '_') });
    store = new MessageStore(db);
    const retries = new RetryQueue(db);
    await Promise.all([store.init(), retries.init()]);
    const publisher = {
      publish: (_topic: string, type: string) => {
        emitted.push(type);
        return Promise.resolve('id');
      },
    } as unknown as Publisher;
    timeline = new Timeline(store, publisher, retries, { maxAttempts: 3, baseMs: 1000, maxMs: 10_000 });
  });

  afterAll(async () => {
    await db?.dropDatabase();
    await db?.close();
  });

  it('13.6 replayed opens and clicks add one entry for the first open and one per distinct link, with counts', async () => {
    const message = acceptedMessage({ id: 'msg_engaged', projectId: 'p1', email: 'ann@example.org' });
    await store.insertNew([message]);
    await timeline.recordAttempt(message, 1, { event: 'sent', smtp: { code: 250, response: '250 OK' } });
    emitted.length = 0;
    const at = new Date();
    // Side by side, as a replayed link hammers the edge; some land in the same group commit.
    await Promise.all(Array.from({ length: 60 }, () => timeline.recordEngagement(message, 'opened', at)));
    for (let i = 0; i < 3; i++) {
      await Promise.all([
        timeline.recordEngagement(message, 'clicked', at, { url: 'https://shop.example/a' }),
        timeline.recordEngagement(message, 'clicked', at, { url: 'https://shop.example/b' }),
      ]);
    }
    await timeline.recordEngagement(message, 'opened', at);

    const events = (await store.timelines([message._id])).get(message._id)!;
    expect(events.map((e) => e.event)).toEqual(['sent', 'opened', 'clicked', 'clicked']);
    expect(events.map((e) => e.sequence)).toEqual([2, 3, 4, 5]);
    expect(emitted.sort()).toEqual(['message.clicked', 'message.clicked', 'message.opened']);
    const view = messageView(message, events);
    expect(view).toMatchObject({ opened: true, clicked: true, opens: 61, clicks: 6 });
    expect(view.timeline.filter((e) => e.event === 'clicked').map((e) => [e.url, e.count])).toEqual([
      ['https://shop.example/a', 3],
      ['https://shop.example/b', 3],
    ]);
  });
});
