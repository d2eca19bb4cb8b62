import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Bus } from '@postbus/bus';
import { connectDb } from '@postbus/db';
import { call, internalAuthorization, waitFor } from '@postbus/testing';
import type { Dispatcher } from '../src/app';
import { createWebhook, publishProject, publishSent, startTestDispatcher, testDispatcherConfig } from './helpers';

/** A receiver slower than the event handler's wait: the offset commits, the attempt still ends once. */
describe('a slow receiver', () => {
  const hits: number[] = [];
  const server = createServer((req, res) => {
    hits.push(Date.now());
    req.resume();
    setTimeout(() => res.writeHead(200).end('ok'), 6_500);
  });
  let dispatcher: Dispatcher;
  let bus: Bus;
  const config = testDispatcherConfig({ WEBHOOK_TIMEOUT_MS: '9000' });

  beforeAll(async () => {
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    ({ dispatcher, bus } = await startTestDispatcher(config));
  });

  afterAll(async () => {
    await bus?.close();
    await dispatcher?.stop();
    server.closeAllConnections();
    server.close();
  });

  it('is attempted once, and the delivery ends succeeded', async () => {
    const url = `http://127.0.0.1:${dispatcher.port}`;
    const created = await createWebhook(dispatcher, `http://127.0.0.1:${(server.address() as AddressInfo).port}/slow`);
    expect(created.status).toBe(201);
    const projectId = '0123456789abcdef01234567';
    await publishProject(bus, projectId);
    await publishSent(bus, 'msg_0123456789abcdef0123456789abcdef', projectId, 'slow@example.org');
    const delivery = await waitFor(
      async () => {
        const res = await call(url, 'GET', `/internal/clients/cl_test/webhooks/${created.body.id}/deliveries?status=succeeded`, {
          auth: await internalAuthorization('webhook-dispatcher'),
        });
        return res.body?.data?.[0] as { attempts: Array<{ attempt: number; status_code: number }> } | undefined;
      },
      { timeoutMs: 30_000, what: 'the slow delivery to succeed' },
    );
    expect(delivery.attempts).toEqual([expect.objectContaining({ attempt: 1, status_code: 200 })]);
    await new Promise((r) => setTimeout(r, 1_000));
    expect(hits).toHaveLength(1);
    // The entry that covered the open attempt while the offset committed is gone: nothing will resend it.
    const db = await connectDb({ url: config.MONGO_URL, dbName: config.WEBHOOKS_DB_NAME });
    try {
      expect(await db.collection('due_attempts').countDocuments()).toBe(0);
    } finally {
      await db.close();
    }
  }, 60_000);
});
