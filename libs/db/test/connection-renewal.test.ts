import { createConnection as connectTcp, createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { Schema } from 'mongoose';
import { defaultMongoUrl, uniqueName, waitFor } from '@postbus/testing';
import { connectDb, type Connection } from '../src';

/**
 * A TCP proxy to the database that can freeze: the connections open at that moment, and those
 * opened while it is frozen, never carry another byte and are never closed, as connections to a
 * database container's old address after it restarted elsewhere (no answer, no reset). Once it
 * thaws, new connections reach the database again.
 */
async function startProxy(target: URL): Promise<{ url: string; freeze(): void; thaw(): void; close(): Promise<void> }> {
  let frozen = false;
  const pairs = new Set<{ frozen: boolean; sockets: Socket[] }>();
  const server: Server = createServer((client) => {
    const pair = { frozen, sockets: [client] };
    pairs.add(pair);
    client.on('error', () => undefined);
    client.on('close', () => pairs.delete(pair));
    if (pair.frozen) return;
    const upstream = connectTcp(Number(target.port || 27017), target.hostname);
    pair.sockets.push(upstream);
    upstream.on('error', () => client.destroy());
    upstream.on('close', () => client.destroy());
    client.on('close', () => upstream.destroy());
    client.on('data', (chunk) => pair.frozen || upstream.write(chunk));
    upstream.on('data', (chunk) => pair.frozen || client.write(chunk));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `mongodb://127.0.0.1:${port}`,
    freeze() {
      frozen = true;
      for (const pair of pairs) pair.frozen = true;
    },
    thaw() {
      frozen = false;
    },
    async close() {
      for (const pair of pairs) for (const socket of pair.sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

describe('a connection whose client is stuck is renewed', () => {
  let proxy: Awaited<ReturnType<typeof startProxy>>;
  let db: Connection;
  const renewals: Array<{ unansweredMs: number; error?: unknown }> = [];

  beforeAll(async () => {
    proxy = await startProxy(new URL(defaultMongoUrl()));
    db = await connectDb({
      url: proxy.url,
      dbName: uniqueName('renewal').replace(/-/g, '_'),
      connectTimeoutMs: 3_000,
      renewAfterMs: 2_000,
      onRenew: (event) => renewals.push(event),
    });
  });

  afterAll(async () => {
    await db?.dropDatabase().catch(() => undefined);
    await db?.close();
    await proxy?.close();
  });

  it('a new client serves the same models once the database answers again, where the stuck one would wait on connections that never answer', async () => {
    const Thing = db.model('Thing', new Schema({ _id: String }, { versionKey: false }));
    await Thing.create({ _id: 'before' });

    proxy.freeze();
    await waitFor(() => Promise.resolve(renewals.length > 0 || undefined), { timeoutMs: 20_000, what: 'a renewal tried while unanswered' });
    expect(renewals.every((r) => r.error !== undefined)).toBe(true); // nothing swapped while the database cannot be reached
    proxy.thaw();
    await waitFor(() => Promise.resolve(renewals.some((r) => r.error === undefined) || undefined), {
      timeoutMs: 20_000,
      what: 'a renewal that reconnected',
    });
    await Thing.create({ _id: 'after' });
    expect((await Thing.find().lean()).map((t) => t._id).sort()).toEqual(['after', 'before']);
  }, 60_000);
});
