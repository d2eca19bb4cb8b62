import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { SecretBox } from '@postbus/crypto';
import { connectDb, type Connection } from '@postbus/db';
import { AddressPolicy, problemHandler, requireInternalToken } from '@postbus/http';
import { createLogger } from '@postbus/logger';
import { call, defaultMongoUrl, testInternalApiSecret, uniqueName } from '@postbus/testing';
import { internalApi } from '../../webhook-dispatcher/src/http/internal-api';
import { DeliveryStore } from '../../webhook-dispatcher/src/model/delivery.repository';
import { EndpointStore } from '../../webhook-dispatcher/src/model/endpoint.repository';
import { createTestClient, startTestGateway, type TestClient, type TestGateway } from './helpers';

/** The webhook dispatcher's real internal API on its own database, without its delivery loop. */
async function startDispatcherApi(): Promise<{ url: string; db: Connection; deliveries: DeliveryStore; stop(): Promise<void> }> {
  const db = await connectDb({ url: defaultMongoUrl(), dbName: uniqueName('wh').replace(/-/g, '_') });
  const endpoints = new EndpointStore(db, new SecretBox(undefined));
  const deliveries = new DeliveryStore(db);
  await Promise.all([endpoints.init(), deliveries.init()]);
  const app = express();
  app.use('/internal', requireInternalToken({ secret: testInternalApiSecret, audience: 'webhook-dispatcher' }));
  app.use(internalApi({ endpoints, deliveries, policy: new AddressPolicy(['127.0.0.1', 'localhost']), secretOverlapMs: 60_000 }));
  app.use(problemHandler(createLogger({ service: 'dispatcher-test', level: 'error' })));
  const server: Server = await new Promise((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  let stopped = false;
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    db,
    deliveries,
    async stop() {
      if (stopped) return;
      stopped = true;
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

describe('webhook endpoints (managed by the webhook dispatcher through the gateway)', () => {
  let gw: TestGateway;
  let dispatcher: Awaited<ReturnType<typeof startDispatcherApi>>;
  let acme: TestClient;
  let other: TestClient;
  let otherProjectId: string;
  let projectId: string;

  beforeAll(async () => {
    dispatcher = await startDispatcherApi();
    gw = await startTestGateway({ WEBHOOKS_URL: dispatcher.url });
    [acme, other] = await Promise.all([createTestClient(gw.config), createTestClient(gw.config)]);
    const [mine, theirs] = await Promise.all([
      call(gw.url, 'POST', '/v1/projects', { auth: acme.auth, json: { name: 'Shop' } }),
      call(gw.url, 'POST', '/v1/projects', { auth: other.auth, json: { name: 'Theirs' } }),
    ]);
    expect([mine.status, theirs.status]).toEqual([201, 201]);
    projectId = mine.body.id;
    otherProjectId = theirs.body.id;
  });

  afterAll(async () => {
    await gw?.stop();
    await dispatcher?.stop();
    await dispatcher?.db.dropDatabase();
    await dispatcher?.db.close();
  });

  const create = (auth: string, json: Record<string, unknown>) => call(gw.url, 'POST', '/v1/webhooks', { auth, json });
  const hook = { url: 'http://127.0.0.1:9/hook', events: ['message.sent', 'message.bounced'] };

  describe('when a client creates, reads, changes, rotates and deletes a webhook', () => {
    it('then the secret is shown on create and rotate only, and the webhook is gone after delete', async () => {
      const created = await create(acme.auth, { ...hook, project_id: projectId, description: 'orders' });
      expect(created.status).toBe(201);
      expect(created.body).toEqual({
        id: expect.stringMatching(/^we_[a-f0-9]{24}$/),
        url: hook.url,
        events: hook.events,
        project_id: projectId,
        description: 'orders',
        format: 'standard',
        enabled: true,
        disabled_reason: null,
        created_at: expect.any(String),
        updated_at: expect.any(String),
        secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]+=*$/),
      });
      const { id, secret } = created.body;

      const listed = await call(gw.url, 'GET', '/v1/webhooks', { auth: acme.auth });
      expect(listed.status).toBe(200);
      expect(listed.body.data.map((w: { id: string }) => w.id)).toContain(id);
      const one = await call(gw.url, 'GET', `/v1/webhooks/${id}`, { auth: acme.auth });
      expect(one.status).toBe(200);
      for (const body of [listed.text, one.text]) {
        expect(body).not.toContain('whsec_');
        expect(body).not.toContain('secrets');
      }
      const { secret: _shownOnce, ...withoutSecret } = created.body;
      expect(one.body).toEqual(withoutSecret);

      const patched = await call(gw.url, 'PATCH', `/v1/webhooks/${id}`, {
        auth: acme.auth,
        json: { events: ['*'], enabled: false, description: null },
      });
      expect(patched.status).toBe(200);
      expect(patched.body).toMatchObject({ id, events: ['*'], enabled: false, description: null, url: hook.url, project_id: projectId });
      expect(patched.text).not.toContain('whsec_');

      const rotated = await call(gw.url, 'POST', `/v1/webhooks/${id}/rotate-secret`, { auth: acme.auth });
      expect(rotated.status).toBe(200);
      expect(rotated.body).toMatchObject({ id, secret: expect.stringMatching(/^whsec_/) });
      expect(rotated.body.secret).not.toBe(secret);

      const deleted = await call(gw.url, 'DELETE', `/v1/webhooks/${id}`, { auth: acme.auth });
      expect(deleted.status).toBe(204);
      expect((await call(gw.url, 'GET', `/v1/webhooks/${id}`, { auth: acme.auth })).status).toBe(404);
      expect((await call(gw.url, 'DELETE', `/v1/webhooks/${id}`, { auth: acme.auth })).status).toBe(404);
    });
  });

  describe('when the URL points at an internal address', () => {
    it.each([
      ['http://10.0.0.1/hook', '10.0.0.1 is a private address'],
      ['http://169.254.169.254/latest', '169.254.169.254 is a cloud metadata address'],
    ])('then %s is refused with 422 and the reason', async (url, reason) => {
      const res = await create(acme.auth, { ...hook, url });
      expect(res.status).toBe(422);
      expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      expect(res.body).toMatchObject({ type: '/problems/webhook-url-refused', status: 422 });
      expect(res.body.detail).toContain(reason);
    });

    it('then changing a webhook to such a URL is refused too', async () => {
      const { body } = await create(acme.auth, hook);
      const res = await call(gw.url, 'PATCH', `/v1/webhooks/${body.id}`, { auth: acme.auth, json: { url: 'http://192.168.1.1/x' } });
      expect(res.status).toBe(422);
      expect(res.body.detail).toContain('192.168.1.1 is a private address');
      expect((await call(gw.url, 'GET', `/v1/webhooks/${body.id}`, { auth: acme.auth })).body.url).toBe(hook.url);
    });
  });

  describe('when the body is invalid', () => {
    it.each([
      ['an ftp URL', { ...hook, url: 'ftp://x' }, '/url'],
      ['an unknown event type', { ...hook, events: ['nope'] }, '/events/0'],
      ['no events', { ...hook, events: [] }, '/events'],
      ['an unknown field', { ...hook, secret: 'whsec_mine' }, '/secret'],
    ])('then %s is a 400 naming the field', async (_what, json, pointer) => {
      const res = await create(acme.auth, json);
      expect(res.status).toBe(400);
      expect(res.body.errors.map((e: { pointer: string }) => e.pointer)).toContain(pointer);
    });

    it('then an empty PATCH is a 400', async () => {
      const { body } = await create(acme.auth, hook);
      expect((await call(gw.url, 'PATCH', `/v1/webhooks/${body.id}`, { auth: acme.auth, json: {} })).status).toBe(400);
    });
  });

  describe("when a client reaches for another client's webhook or project", () => {
    it('then it is a 404, as for an unknown one', async () => {
      const { body } = await create(acme.auth, hook);
      for (const [method, path] of [
        ['GET', `/v1/webhooks/${body.id}`],
        ['PATCH', `/v1/webhooks/${body.id}`],
        ['DELETE', `/v1/webhooks/${body.id}`],
        ['POST', `/v1/webhooks/${body.id}/rotate-secret`],
        ['POST', `/v1/webhooks/${body.id}/test`],
        ['GET', `/v1/webhooks/${body.id}/deliveries`],
        ['GET', '/v1/webhooks/we_000000000000000000000000'],
        ['GET', '/v1/webhooks/not-an-id'],
      ] as const) {
        const res = await call(gw.url, method, path, { auth: other.auth, ...(method === 'PATCH' ? { json: { enabled: true } } : {}) });
        expect([method, path, res.status]).toEqual([method, path, 404]);
      }
      const theirs = await call(gw.url, 'GET', '/v1/webhooks', { auth: other.auth });
      expect(theirs.body.data.map((w: { id: string }) => w.id)).not.toContain(body.id);
      expect((await call(gw.url, 'GET', `/v1/webhooks/${body.id}`, { auth: acme.auth })).status).toBe(200);
    });

    it("then naming another client's project is a 404", async () => {
      const res = await create(acme.auth, { ...hook, project_id: otherProjectId });
      expect(res.status).toBe(404);
      expect(res.body.detail).toBe('No such project for this client.');
      const { body } = await create(acme.auth, hook);
      const patched = await call(gw.url, 'PATCH', `/v1/webhooks/${body.id}`, { auth: acme.auth, json: { project_id: otherProjectId } });
      expect(patched.status).toBe(404);
    });
  });

  describe('when a client sends a test event and follows the deliveries', () => {
    it('then the delivery is listed as pending with its payload, and cannot be retried yet', async () => {
      const { body: webhook } = await create(acme.auth, hook);
      const sent = await call(gw.url, 'POST', `/v1/webhooks/${webhook.id}/test`, { auth: acme.auth });
      expect(sent.status).toBe(202);
      expect(sent.body).toEqual({ delivery_id: expect.stringMatching(/^msg_[a-f0-9]{32}$/) });

      const listed = await call(gw.url, 'GET', `/v1/webhooks/${webhook.id}/deliveries`, { auth: acme.auth });
      expect(listed.status).toBe(200);
      expect(listed.body).toEqual({
        data: [
          {
            id: sent.body.delivery_id,
            event_id: expect.stringMatching(/^evt_test_[a-f0-9]+$/),
            event_type: 'webhook.test',
            status: 'pending',
            created_at: expect.any(String),
            payload: { type: 'webhook.test', timestamp: expect.any(String), data: { webhook_id: webhook.id } },
            attempts: [],
          },
        ],
        next_cursor: null,
      });
      const failedOnly = await call(gw.url, 'GET', `/v1/webhooks/${webhook.id}/deliveries?status=failed`, { auth: acme.auth });
      expect(failedOnly.body).toEqual({ data: [], next_cursor: null });
      const badStatus = await call(gw.url, 'GET', `/v1/webhooks/${webhook.id}/deliveries?status=lost`, { auth: acme.auth });
      expect(badStatus.status).toBe(400);

      const retry = await call(gw.url, 'POST', `/v1/webhooks/${webhook.id}/deliveries/${sent.body.delivery_id}/retry`, { auth: acme.auth });
      expect(retry.status).toBe(409);
      expect(retry.body).toMatchObject({ type: '/problems/delivery-pending', status: 409 });

      const unknown = await call(gw.url, 'POST', `/v1/webhooks/${webhook.id}/deliveries/msg_${'0'.repeat(32)}/retry`, { auth: acme.auth });
      expect(unknown.status).toBe(404);
    });

    it('then a failed delivery can be retried once, and a succeeded one not at all', async () => {
      const { body: webhook } = await create(acme.auth, hook);
      const ids: string[] = [];
      for (let i = 0; i < 2; i++)
        ids.push((await call(gw.url, 'POST', `/v1/webhooks/${webhook.id}/test`, { auth: acme.auth })).body.delivery_id);
      const [failing, succeeding] = ids as [string, string];
      // What the delivery loop would have done: the first attempt taken off the queue and recorded.
      const attempt = (deliveryId: string, outcome: 'failed' | 'succeeded') => ({
        _id: `${deliveryId}:1`,
        deliveryId,
        endpointId: webhook.id,
        attempt: 1,
        at: new Date(),
        statusCode: outcome === 'failed' ? 500 : 200,
        latencyMs: 12,
        response: outcome === 'failed' ? 'oops' : 'ok',
        error: null,
        outcome,
      });
      await Promise.all([
        dispatcher.deliveries.recordAttempt(attempt(failing, 'failed')),
        dispatcher.deliveries.recordAttempt(attempt(succeeding, 'succeeded')),
      ]);
      await Promise.all([dispatcher.deliveries.due.done(failing), dispatcher.deliveries.due.done(succeeding)]);

      const retryOf = (id: string) => call(gw.url, 'POST', `/v1/webhooks/${webhook.id}/deliveries/${id}/retry`, { auth: acme.auth });
      const retried = await retryOf(failing);
      expect(retried.status).toBe(202);
      expect(retried.body).toEqual({ status: 'scheduled', delivery_id: failing });
      expect(await dispatcher.deliveries.due.pending(failing)).toBe(true);
      expect((await retryOf(failing)).body).toMatchObject({ type: '/problems/delivery-pending', status: 409 });
      expect((await retryOf(succeeding)).body).toMatchObject({ type: '/problems/delivery-succeeded', status: 409 });

      const failed = await call(gw.url, 'GET', `/v1/webhooks/${webhook.id}/deliveries?status=failed&limit=1`, { auth: acme.auth });
      expect(failed.body.data).toEqual([
        expect.objectContaining({
          id: failing,
          status: 'failed',
          attempts: [
            {
              attempt: 1,
              at: expect.any(String),
              status_code: 500,
              latency_ms: 12,
              response: 'oops',
              error: null,
              outcome: 'failed',
              next_attempt_at: null,
            },
          ],
        }),
      ]);
    });
  });

  describe('when a webhook is created or its secret rotated with an Idempotency-Key', () => {
    it('13.8 idempotent replays never store secrets (webhook create, rotate-secret)', async () => {
      const gatewayDb = await connectDb({ url: gw.config.MONGO_URL, dbName: gw.dbName });
      try {
        const createKey = { 'Idempotency-Key': `wh-create-${Date.now()}` };
        const created = await call(gw.url, 'POST', '/v1/webhooks', { auth: acme.auth, json: hook, headers: createKey });
        expect(created.status).toBe(201);
        const replayed = await call(gw.url, 'POST', '/v1/webhooks', { auth: acme.auth, json: hook, headers: createKey });
        expect(replayed.status).toBe(409);
        expect(replayed.body.type).toBe('/problems/idempotency-secret-not-replayed');
        expect(replayed.text).not.toContain(created.body.secret);

        const rotateKey = { 'Idempotency-Key': `wh-rotate-${Date.now()}` };
        const rotate = () => call(gw.url, 'POST', `/v1/webhooks/${created.body.id}/rotate-secret`, { auth: acme.auth, headers: rotateKey });
        const rotated = await rotate();
        expect(rotated.status).toBe(200);
        expect((await rotate()).status).toBe(409);

        const stored = JSON.stringify(await gatewayDb.collection('idempotency_responses').find({}).toArray());
        expect(stored).toContain(createKey['Idempotency-Key']);
        expect(stored).not.toMatch(/whsec_/);
      } finally {
        await gatewayDb.close();
      }
    });
  });

  describe('when a client reads the OpenAPI document', () => {
    it('then it lists the webhook operations', async () => {
      const res = await call(gw.url, 'GET', '/v1/openapi.json');
      expect(res.status).toBe(200);
      const paths = res.body.paths as Record<string, Record<string, unknown>>;
      const ops = Object.entries(paths).flatMap(([path, methods]) =>
        Object.keys(methods)
          .filter((m) => ['get', 'post', 'patch', 'delete', 'put'].includes(m))
          .map((m) => `${m.toUpperCase()} ${path}`),
      );
      expect(ops).toEqual(
        expect.arrayContaining([
          'POST /v1/webhooks',
          'GET /v1/webhooks',
          'GET /v1/webhooks/{webhookId}',
          'PATCH /v1/webhooks/{webhookId}',
          'DELETE /v1/webhooks/{webhookId}',
          'POST /v1/webhooks/{webhookId}/rotate-secret',
          'GET /v1/webhooks/{webhookId}/deliveries',
          'POST /v1/webhooks/{webhookId}/deliveries/{deliveryId}/retry',
          'POST /v1/webhooks/{webhookId}/test',
        ]),
      );
    });
  });

  describe('when the dispatcher is down', () => {
    it('then the gateway answers 503 with Retry-After', async () => {
      await dispatcher.stop();
      const res = await call(gw.url, 'GET', '/v1/webhooks', { auth: acme.auth });
      expect(res.status).toBe(503);
      expect(res.headers.get('retry-after')).toBeTruthy();
      expect(res.body.type).toBe('/problems/service-unavailable');
    });
  });
});
