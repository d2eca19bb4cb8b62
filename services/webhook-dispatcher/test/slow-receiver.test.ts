import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import { Bus, busOptions } from '@postbus/bus';
import { loadConfig } from '@postbus/config';
import { Topics } from '@postbus/contracts';
import { connectDb } from '@postbus/db';
import { createLogger } from '@postbus/logger';
import { call, internalAuthorization, testInternalApiSecret, uniqueName, waitFor } from '@postbus/testing';
import { start, type Dispatcher } from '../src/app';
import { DispatcherConfig } from '../src/config';

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
  const namespace = uniqueName('t');
  const config = loadConfig(DispatcherConfig, {
    ...process.env,
    PORT: '0',
    KAFKA_NAMESPACE: namespace,
    KAFKA_TOPIC_PARTITIONS: '1',
    WEBHOOKS_DB_NAME: namespace.replace(/-/g, '_'),
    SECRETS_KEY: randomBytes(32).toString('base64'),
    WEBHOOK_ALLOWED_HOSTS: '127.0.0.1',
    WEBHOOK_TIMEOUT_MS: '9000',
    INTERNAL_API_SECRET: testInternalApiSecret,
    LOG_LEVEL: 'error',
  });

  beforeAll(async () => {
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    dispatcher = await start({ config, logger: createLogger({ service: 'dispatcher-test', level: 'error' }) });
    bus = new Bus({ ...busOptions(config), service: 'postbus/test', logger: createLogger({ service: 'test', level: 'error' }) });
  });

  afterAll(async () => {
    await bus?.close();
    await dispatcher?.stop();
    server.closeAllConnections();
    server.close();
  });

  it('is attempted once, and the delivery ends succeeded', async () => {
    const url = `http://127.0.0.1:${dispatcher.port}`;
    const receiver = `http://127.0.0.1:${(server.address() as AddressInfo).port}/slow`;
    const created = await call(url, 'POST', '/internal/clients/cl_test/webhooks', {
      json: { url: receiver, events: ['*'] },
      auth: await internalAuthorization('webhook-dispatcher'),
    });
    expect(created.status).toBe(201);
    const projectId = '0123456789abcdef01234567';
    await bus.publisher.publish(Topics.Catalog, 'catalog.project', `project:${projectId}`, {
      id: projectId,
      clientId: 'cl_test',
      revision: Date.now(),
      name: 'p',
      fromEmail: null,
      fromName: null,
      replyTo: null,
      senderDomainId: null,
      trackingDomainId: null,
    });
    const event = {
      messageId: 'msg_0123456789abcdef0123456789abcdef',
      projectId,
      emailKey: 'welcome',
      email: 'slow@example.org',
      userId: null,
      event: 'sent',
      sequence: 2,
      at: new Date().toISOString(),
    };
    await bus.publisher.publish(Topics.EmailEvents, 'message.sent', event.messageId, event, { id: `${event.messageId}:2` });
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
