import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Bus } from '@postbus/bus';
import { Topics } from '@postbus/contracts';
import { connectDb, type Connection } from '@postbus/db';
import { waitFor } from '@postbus/testing';
import type { Dispatcher } from '../src/app';
import { createWebhook, publishProject, publishSent, startTestDispatcher, testDispatcherConfig } from './helpers';

/** Issue 13.6: events of a deleted project are skipped at once; they do not hold the events behind them. */
describe('events for a deleted project', () => {
  const received: Array<{ at: number; body: string }> = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      received.push({ at: Date.now(), body });
      res.writeHead(200).end('ok');
    });
  });
  let dispatcher: Dispatcher;
  let bus: Bus;
  let db: Connection;
  const config = testDispatcherConfig();

  beforeAll(async () => {
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    ({ dispatcher, bus } = await startTestDispatcher(config));
    db = await connectDb({ url: config.MONGO_URL, dbName: config.WEBHOOKS_DB_NAME });
  });

  afterAll(async () => {
    await db?.close();
    await bus?.close();
    await dispatcher?.stop();
    server.closeAllConnections();
    server.close();
  });

  const sent = (projectId: string, n: number) =>
    publishSent(bus, `msg_${projectId}${String(n).padStart(8, '0')}`, projectId, 'someone@example.org');

  it('13.6 an event for a deleted project is skipped at once: the live project behind it gets its webhook within seconds', async () => {
    const created = await createWebhook(dispatcher, `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`);
    expect(created.status).toBe(201);
    const [gone, live] = ['0123456789abcdef0000dead', '0123456789abcdef0000a11e'];
    await publishProject(bus, gone);
    await publishProject(bus, live);
    const projects = db.collection<{ _id: string; deleted?: boolean }>('projects');
    await waitFor(async () => (await projects.countDocuments({ _id: { $in: [gone, live] } })) === 2 || undefined, {
      timeoutMs: 30_000,
      what: 'both projects in the projection',
    });
    await bus.publisher.publish(Topics.Catalog, 'catalog.deleted', `project:${gone}`, {
      kind: 'project',
      id: gone,
      clientId: 'cl_test',
      revision: Date.now(),
    });
    // The flag itself: a replace on FerretDB may show no document for a moment, which is not the deletion.
    await waitFor(async () => (await projects.findOne({ _id: gone }))?.deleted === true || undefined, {
      timeoutMs: 30_000,
      what: 'the deletion in the projection',
    });

    const publishedAt = Date.now();
    for (let n = 0; n < 3; n++) await sent(gone, n);
    await sent(live, 0);
    const arrival = await waitFor(() => Promise.resolve(received.find((r) => r.body.includes(live))), {
      timeoutMs: 45_000,
      what: 'the live webhook',
    });
    // Before: each event of the deleted project held the consumer up to 30 s.
    expect(arrival.at - publishedAt).toBeLessThan(10_000);
    expect(received.filter((r) => r.body.includes(gone))).toHaveLength(0);
  }, 90_000);
});
