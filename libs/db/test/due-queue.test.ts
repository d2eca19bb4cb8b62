import mongoose from 'mongoose';
import { connectDb, DueQueue, type Connection } from '@postbus/db';
import { defaultMongoUrl, sleep, uniqueName } from '@postbus/testing';

const LEASE_MS = 2_000;

describe('DueQueue claims with several instances', () => {
  const dbName = uniqueName('due_queue').replace(/-/g, '_');
  const collection = 'due_test';
  const connections: Connection[] = [];
  /** One queue per "instance", each on its own connection, as separate processes would be. */
  const instance = async () => {
    const connection = await connectDb({ url: defaultMongoUrl(), dbName });
    connections.push(connection);
    const queue = new DueQueue<{ n: number }>(connection, collection);
    await queue.init();
    return { connection, queue };
  };

  afterAll(async () => {
    await connections[0]?.dropDatabase();
    await Promise.all(connections.map((c) => c.close()));
  });

  it('an item whose claimer died between its claim and moving the due time is claimed again once the lease runs out, by one instance', async () => {
    const dying = await instance();
    const [b, c] = [await instance(), await instance()];
    await dying.queue.schedule('item-1', new Date(Date.now() - 1), { n: 1 });
    // The claimer's process ends right after its claim is stored, before it moves the due time a lease ahead (a SIGKILL).
    const dyingDue = dying.connection.model(`Due:${collection}`);
    dyingDue.updateOne = dyingDue.bulkWrite = () => {
      throw new Error('killed');
    };
    await expect(dying.queue.claimDue(10, LEASE_MS)).rejects.toThrow('killed');

    // Within the dead claimer's lease nobody else sends the item: it may still be alive and sending.
    expect(await b.queue.claimDue(10, LEASE_MS)).toEqual([]);

    await sleep(LEASE_MS + 100);
    // The first calls after the lease release the dead claim; the item is claimed afresh under its new due time, by one instance.
    const claimed: Array<{ id: string; payload: { n: number } }> = [];
    for (let round = 0; round < 2; round++) {
      const [byB, byC] = await Promise.all([b.queue.claimDue(10, LEASE_MS), c.queue.claimDue(10, LEASE_MS)]);
      claimed.push(...byB, ...byC);
    }
    expect(claimed).toEqual([{ id: 'item-1', payload: { n: 1 } }]);
    // The new claim holds a lease of its own.
    expect([...(await b.queue.claimDue(10, LEASE_MS)), ...(await c.queue.claimDue(10, LEASE_MS))]).toEqual([]);
    await b.queue.done('item-1');
  });

  it('a live claim keeps its lease: no other instance claims the item before it runs out', async () => {
    const [a, b] = [await instance(), await instance()];
    await a.queue.schedule('item-2', new Date(Date.now() - 1), { n: 2 });
    expect(await a.queue.claimDue(10, 5_000)).toEqual([{ id: 'item-2', payload: { n: 2 } }]);
    expect(await b.queue.claimDue(10, 5_000)).toEqual([]);
    await sleep(200);
    expect(await b.queue.claimDue(10, 5_000)).toEqual([]);
    await a.queue.done('item-2');
  });

  it('two instances claiming 200 due items at once each claim a share, and every item is claimed exactly once', async () => {
    const [a, b, c] = [await instance(), await instance(), await instance()];
    const at = new Date(Date.now() - 1_000);
    const ids = Array.from({ length: 200 }, (_, i) => `batch-${i}`);
    await a.queue.scheduleMany(ids.map((id, n) => ({ id, dueAt: at, payload: { n } })));

    const [byA, byB] = await Promise.all([a.queue.claimDue(200, 60_000), b.queue.claimDue(200, 60_000)]);
    const claimed = [...byA, ...byB].map((item) => item.id);
    expect(claimed.sort()).toEqual([...ids].sort());
    expect(new Set(claimed).size).toBe(200);
    // Every winner's due time moved a lease ahead: nobody claims them again meanwhile.
    expect(await c.queue.claimDue(200, 60_000)).toEqual([]);
    await Promise.all(ids.map((id) => a.queue.done(id)));
  });

  it('claims a batch of 200 in a bounded number of round trips, not one or two per item', async () => {
    const { connection } = await instance();
    const batchCollection = 'due_batch';
    const batchQueue = new DueQueue<{ n: number }>(connection, batchCollection);
    await batchQueue.init();
    const at = new Date(Date.now() - 1_000);
    await batchQueue.scheduleMany(Array.from({ length: 200 }, (_, n) => ({ id: `trip-${n}`, dueAt: at, payload: { n } })));

    const sent: string[] = [];
    mongoose.set('debug', (name: string, method: string) => {
      if (name.startsWith(batchCollection)) sent.push(`${name}.${method}`);
    });
    try {
      expect(await batchQueue.claimDue(200, 60_000)).toHaveLength(200);
    } finally {
      mongoose.set('debug', false);
    }
    // The read of what is due, the claims' insert, the winners' move (50 a command: FerretDB hangs on 100), and (a queue's first claim) the purge of old claims.
    expect(sent).toEqual([
      `${batchCollection}.find`,
      `${batchCollection}_claims.insertMany`,
      ...Array.from({ length: 4 }, () => `${batchCollection}.bulkWrite`),
      `${batchCollection}_claims.deleteMany`,
    ]);
  });
});
