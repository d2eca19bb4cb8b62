import { randomBytes } from 'node:crypto';
import { SecretBox } from '@postbus/crypto';
import { connectDb, type Connection } from '@postbus/db';
import { defaultMongoUrl, uniqueName } from '@postbus/testing';
import { InMemorySubscriberStore } from '../preview/in-memory-subscriber-store';
import type { SubscriberStore } from '../src/domain/ports';
import { MongoSubscriberStore } from '../src/model/subscriber.repository';

/** Both stores behave alike: the mongoose one against the MongoDB-wire server, the in-memory one as the tests' fake. */
describe.each([
  ['in memory', () => Promise.resolve({ store: new InMemorySubscriberStore(), close: () => Promise.resolve() })],
  [
    'mongoose',
    async () => {
      const db: Connection = await connectDb({ url: defaultMongoUrl(), dbName: uniqueName('status-subscribers') });
      const store = new MongoSubscriberStore(db, new SecretBox(randomBytes(32).toString('base64')));
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

describe('webhook subscribers in the database', () => {
  let db: Connection;
  const key = randomBytes(32).toString('base64');
  beforeAll(async () => {
    db = await connectDb({ url: defaultMongoUrl(), dbName: uniqueName('status-secrets') });
  });
  afterAll(async () => {
    await db.dropDatabase();
    await db.close();
  });

  it('keep their signing secret sealed: the stored row holds no clear secret, the store reads it back', async () => {
    const unreadable: string[] = [];
    const store = new MongoSubscriberStore(db, new SecretBox(key), (id) => unreadable.push(id));
    const secret = `whsec_${randomBytes(24).toString('base64')}`;
    const hook = await store.add({ kind: 'webhook', address: 'https://hooks.example/sealed', secret, confirmedAt: new Date() }, new Date());
    expect(hook.secret).toBe(secret);
    const row = await db.collection('status_subscribers').findOne({ _id: hook.id as never });
    expect(JSON.stringify(row)).not.toContain(secret.slice(6));
    expect(row?.['secret']).toMatchObject({ iv: expect.any(String), tag: expect.any(String), data: expect.any(String) });
    expect((await store.findById(hook.id))?.secret).toBe(secret);

    // A row written before secrets were sealed still signs.
    await db.collection('status_subscribers').insertOne({
      _id: 'legacy' as never,
      kind: 'webhook',
      address: 'https://hooks.example/legacy',
      secret: 'whsec_legacy',
      confirmedAt: new Date(),
      createdAt: new Date(),
    });
    expect((await store.findById('legacy'))?.secret).toBe('whsec_legacy');

    // Under another key the sealed secret cannot be opened: that webhook is left out, the others are not.
    const otherKey = new MongoSubscriberStore(db, new SecretBox(randomBytes(32).toString('base64')), (id) => unreadable.push(id));
    expect((await otherKey.listConfirmed()).map((s) => s.id)).toEqual(['legacy']);
    expect(unreadable).toEqual([hook.id]);
    expect((await store.listConfirmed()).map((s) => s.id).sort()).toEqual([hook.id, 'legacy'].sort());
  });
});
