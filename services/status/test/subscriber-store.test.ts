import { connectDb, type Connection } from '@postbus/db';
import { defaultMongoUrl, uniqueName } from '@postbus/testing';
import { InMemorySubscriberStore, MongoSubscriberStore, type SubscriberStore } from '../src/subscriptions/store';

/** Both stores behave alike: the mongoose one against the MongoDB-wire server, the in-memory one as the tests' fake. */
describe.each([
  ['in memory', () => Promise.resolve({ store: new InMemorySubscriberStore(), close: () => Promise.resolve() })],
  [
    'mongoose',
    async () => {
      const db: Connection = await connectDb({ url: defaultMongoUrl(), dbName: uniqueName('status-subscribers') });
      const store = new MongoSubscriberStore(db);
      return {
        store: store,
        close: async () => {
          await db.dropDatabase();
          await db.close();
        },
      };
    },
  ],
])('the %s subscriber store', (_name, open) => {
  let store: SubscriberStore;
  let close: () => Promise<void>;
  beforeAll(async () => {
    ({ store, close } = await open());
  });
  afterAll(() => close());

  it('keeps one subscription per address, lists only the confirmed, removes', async () => {
    const at = new Date('2026-11-23T20:00:00Z');
    const first = await store.add({ kind: 'email', address: 'ada@example.com', secret: null, confirmedAt: null }, at);
    const again = await store.add({ kind: 'email', address: 'ada@example.com', secret: null, confirmedAt: null }, new Date());
    expect(again.id).toBe(first.id);
    const hook = await store.add({ kind: 'webhook', address: 'https://hooks.example/x', secret: 'whsec_abc', confirmedAt: at }, at);
    expect((await store.listConfirmed()).map((s) => s.id)).toEqual([hook.id]);
    await store.confirm(first.id, at);
    expect((await store.listConfirmed()).map((s) => s.id).sort()).toEqual([first.id, hook.id].sort());
    expect(await store.findById(first.id)).toMatchObject({ kind: 'email', address: 'ada@example.com', confirmedAt: at, createdAt: at });
    expect(await store.remove(first.id)).toBe(true);
    expect(await store.remove(first.id)).toBe(false);
    expect(await store.findById(first.id)).toBeNull();
  });
});
