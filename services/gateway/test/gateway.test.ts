import { call, defaultKafkaBrokers, otherLocalAddresses, portOpen, TopicRecorder, waitFor } from '@postbus/testing';
import { createTestClient, startTestGateway, type TestClient, type TestGateway } from './helpers';

describe('gateway', () => {
  let gw: TestGateway;
  let acme: TestClient;
  let sdk: TestClient;
  let other: TestClient;
  let projectId: string;
  let commands: TopicRecorder;

  beforeAll(async () => {
    gw = await startTestGateway();
    [acme, other] = await Promise.all([createTestClient(gw.config), createTestClient(gw.config)]);
    sdk = await createTestClient(gw.config, 'sdk');
    const created = await call(gw.url, 'POST', '/v1/projects', {
      auth: acme.auth,
      json: { name: 'Shop', from_name: 'Shop' },
    });
    expect(created.status).toBe(201);
    projectId = created.body.id;
    commands = await new TopicRecorder(defaultKafkaBrokers().split(','), [`postbus.users.commands.v1.${gw.namespace}`]).start();
  });

  afterAll(async () => {
    await commands?.stop();
    await gw?.stop();
  });

  const users = () => `/v1/projects/${projectId}/users`;

  describe('when a create-user request is valid', () => {
    it('then it answers 200 accepted only after the command is on Kafka, as a CloudEvent keyed by the user', async () => {
      const res = await call(gw.url, 'POST', users(), {
        auth: acme.auth,
        json: { email: 'Ann@Example.com', user_id: 'u-1', fields: { name: 'Ann', plan: 'pro' } },
      });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ status: 'accepted', request_id: expect.stringMatching(/^req_/) });
      expect(res.headers.get('x-request-id')).toBe(res.body.request_id);
      const message = await waitFor(() => commands.messages.find((m) => m.headers['request_id'] === res.body.request_id), {
        what: 'the command on Kafka',
      });
      expect(message.key).toBe(`${projectId}:ann@example.com`);
      expect(message.headers).toMatchObject({ ce_specversion: '1.0', ce_type: 'user.create', ce_source: 'postbus/gateway' });
      expect(message.value).toEqual({ projectId, email: 'ann@example.com', userId: 'u-1', fields: { name: 'Ann', plan: 'pro' } });
    });

    it('then an sdk key may call it too', async () => {
      const sdkProject = await call(gw.url, 'POST', '/v1/projects', { auth: acme.auth, json: { name: 'x' } });
      expect(sdkProject.status).toBe(201);
      // sdk is another client: the project of acme is not its own
      const res = await call(gw.url, 'POST', users(), { auth: sdk.auth, json: { email: 'a@b.co' } });
      expect(res.status).toBe(404);
    });
  });

  describe('when the input is bad, then the answer is a problem+json with the right status, never a 500', () => {
    const cases: [string, () => Promise<{ status: number; contentType: string | null; body: any; text: string }>, number, string?][] = [
      ['missing email', () => call(gw.url, 'POST', users(), { auth: acme.auth, json: { fields: {} } }).then(wrap), 400, '/email'],
      [
        'malformed email',
        () => call(gw.url, 'POST', users(), { auth: acme.auth, json: { email: 'not-an-email' } }).then(wrap),
        400,
        '/email',
      ],
      [
        'wrong type',
        () => call(gw.url, 'POST', users(), { auth: acme.auth, json: { email: 'a@b.co', fields: { age: 'old' } } }).then(wrap),
        400,
        '/fields/age',
      ],
      [
        'unknown top-level key',
        () => call(gw.url, 'POST', users(), { auth: acme.auth, json: { email: 'a@b.co', nickname: 'x' } }).then(wrap),
        400,
        '/nickname',
      ],
      [
        'field name with a dot',
        () => call(gw.url, 'POST', users(), { auth: acme.auth, json: { email: 'a@b.co', fields: { 'a.b': 1 } } }).then(wrap),
        400,
        '/fields/a.b',
      ],
      ['body that is an array', () => call(gw.url, 'POST', users(), { auth: acme.auth, json: [1] }).then(wrap), 400],
      [
        'invalid JSON',
        () => call(gw.url, 'POST', users(), { auth: acme.auth, raw: '{"email":', contentType: 'application/json' }).then(wrap),
        400,
      ],
      [
        'non-JSON body',
        () =>
          call(gw.url, 'POST', users(), { auth: acme.auth, raw: 'email=a@b.co', contentType: 'application/x-www-form-urlencoded' }).then(
            wrap,
          ),
        415,
      ],
      [
        '2 MB body',
        () =>
          call(gw.url, 'POST', users(), { auth: acme.auth, json: { email: 'a@b.co', fields: { blob: 'x'.repeat(2 * 1024 * 1024) } } }).then(
            wrap,
          ),
        413,
      ],
      ['no credentials', () => call(gw.url, 'POST', users(), { json: { email: 'a@b.co' } }).then(wrap), 401],
      [
        'wrong key',
        () =>
          call(gw.url, 'POST', users(), {
            auth: `Basic ${Buffer.from(`${acme.clientId}:pb_full_wrong`).toString('base64')}`,
            json: { email: 'a@b.co' },
          }).then(wrap),
        401,
      ],
      [
        'unknown client',
        () =>
          call(gw.url, 'POST', users(), {
            auth: `Basic ${Buffer.from('cl_nobody:key').toString('base64')}`,
            json: { email: 'a@b.co' },
          }).then(wrap),
        401,
      ],
      ["another client's project", () => call(gw.url, 'POST', users(), { auth: other.auth, json: { email: 'a@b.co' } }).then(wrap), 404],
      [
        'unknown project',
        () =>
          call(gw.url, 'POST', '/v1/projects/0123456789abcdef01234567/users', { auth: acme.auth, json: { email: 'a@b.co' } }).then(wrap),
        404,
      ],
      [
        'malformed project id',
        () => call(gw.url, 'POST', '/v1/projects/nope/users', { auth: acme.auth, json: { email: 'a@b.co' } }).then(wrap),
        404,
      ],
      [
        'sdk key on a management route',
        () => call(gw.url, 'POST', '/v1/projects', { auth: sdk.auth, json: { name: 'x' } }).then(wrap),
        403,
      ],
      [
        'unsubscribe without email or user_id',
        () => call(gw.url, 'POST', `${users()}/unsubscribe`, { auth: acme.auth, json: { reason: 'x' } }).then(wrap),
        400,
      ],
      [
        'update without fields',
        () => call(gw.url, 'PATCH', `${users()}/by-email`, { auth: acme.auth, json: { email: 'a@b.co' } }).then(wrap),
        400,
        '/fields',
      ],
      ['unknown route', () => call(gw.url, 'GET', '/v1/nothing-here', { auth: acme.auth }).then(wrap), 404],
    ];

    function wrap(r: Awaited<ReturnType<typeof call>>) {
      return { status: r.status, contentType: r.headers.get('content-type'), body: r.body, text: r.text, headers: r.headers };
    }

    // Every row gets all four columns: jest would pass `done` as a missing last argument.
    it.each(cases.map(([name, run, status, pointer]) => [name, run, status, pointer ?? null] as const))(
      '%s',
      async (_name, run, status, pointer) => {
        const res = await run();
        expect(res.status).toBe(status);
        expect(res.contentType).toMatch(/^application\/problem\+json/);
        expect(res.body).toMatchObject({
          type: expect.stringMatching(/^\/problems\//),
          title: expect.any(String),
          status,
          request_id: expect.any(String),
        });
        expect(res.text).not.toMatch(/at .*\.(ts|js):\d+/); // no stack trace
        if (pointer) expect(res.body.errors).toEqual(expect.arrayContaining([expect.objectContaining({ pointer })]));
      },
    );

    it('401 carries WWW-Authenticate: Basic', async () => {
      const res = await call(gw.url, 'GET', '/v1/projects');
      expect(res.status).toBe(401);
      expect(res.headers.get('www-authenticate')).toMatch(/^Basic /);
    });
  });

  describe('Idempotency-Key', () => {
    it('when the same key comes with the same body, then the first answer is replayed', async () => {
      const json = { email: 'idem@example.com' };
      const first = await call(gw.url, 'POST', users(), { auth: acme.auth, json, headers: { 'idempotency-key': 'k-1' } });
      const second = await call(gw.url, 'POST', users(), { auth: acme.auth, json, headers: { 'idempotency-key': 'k-1' } });
      expect(first.status).toBe(200);
      expect(second.status).toBe(200);
      expect(second.body).toEqual(first.body);
      expect(second.headers.get('idempotent-replayed')).toBe('true');
      await waitFor(() => commands.messages.some((m) => m.headers['request_id'] === first.body.request_id));
      expect(commands.messages.filter((m) => (m.value as { email?: string }).email === 'idem@example.com')).toHaveLength(1);
    });

    it('when the same key comes with another body, then it is a 422', async () => {
      await call(gw.url, 'POST', users(), { auth: acme.auth, json: { email: 'one@example.com' }, headers: { 'idempotency-key': 'k-2' } });
      const res = await call(gw.url, 'POST', users(), {
        auth: acme.auth,
        json: { email: 'two@example.com' },
        headers: { 'idempotency-key': 'k-2' },
      });
      expect(res.status).toBe(422);
      expect(res.body.type).toBe('/problems/idempotency-key-reused');
    });

    it('keys are per client: another client may use the same key', async () => {
      const own = await call(gw.url, 'POST', '/v1/projects', {
        auth: other.auth,
        json: { name: 'Other' },
        headers: { 'idempotency-key': 'k-1' },
      });
      expect(own.status).toBe(201);
      expect(own.headers.get('idempotent-replayed')).toBeNull();
    });
  });

  describe('projects', () => {
    it('can be created, listed, read, changed and deleted by their owner only', async () => {
      const created = await call(gw.url, 'POST', '/v1/projects', {
        auth: acme.auth,
        json: { name: 'Temp', reply_to: 'help@shop.example' },
      });
      expect(created.status).toBe(201);
      expect(created.body).toMatchObject({ name: 'Temp', reply_to: 'help@shop.example', from_email: null });
      const id = created.body.id as string;
      const list = await call(gw.url, 'GET', '/v1/projects', { auth: acme.auth });
      expect(list.body.data.map((p: { id: string }) => p.id)).toContain(id);
      expect((await call(gw.url, 'GET', `/v1/projects/${id}`, { auth: other.auth })).status).toBe(404);
      const patched = await call(gw.url, 'PATCH', `/v1/projects/${id}`, { auth: acme.auth, json: { name: 'Renamed', from_name: 'Shop' } });
      expect(patched.body).toMatchObject({ name: 'Renamed', from_name: 'Shop', reply_to: 'help@shop.example' });
      expect((await call(gw.url, 'DELETE', `/v1/projects/${id}`, { auth: other.auth })).status).toBe(404);
      expect((await call(gw.url, 'DELETE', `/v1/projects/${id}`, { auth: acme.auth })).status).toBe(204);
      expect((await call(gw.url, 'GET', `/v1/projects/${id}`, { auth: acme.auth })).status).toBe(404);
      expect((await call(gw.url, 'POST', `/v1/projects/${id}/users`, { auth: acme.auth, json: { email: 'a@b.co' } })).status).toBe(404);
    });
  });

  describe('admin sessions', () => {
    it('when Basic credentials are exchanged for a session, then the Bearer token manages and reads, but cannot write data or open sessions', async () => {
      const opened = await call(gw.url, 'POST', '/v1/auth/session', { auth: acme.auth });
      expect(opened.status).toBe(201);
      expect(opened.body).toMatchObject({ token_type: 'Bearer', scope: 'full', token: expect.stringMatching(/^ey/) });
      expect(new Date(opened.body.expires_at).getTime()).toBeGreaterThan(Date.now());
      const bearer = `Bearer ${opened.body.token}`;

      const listed = await call(gw.url, 'GET', '/v1/projects', { auth: bearer });
      expect(listed.status).toBe(200);
      expect(listed.body.data.map((p: { id: string }) => p.id)).toContain(projectId);
      expect((await call(gw.url, 'POST', '/v1/projects', { auth: bearer, json: { name: 'From the panel' } })).status).toBe(201);

      const write = await call(gw.url, 'POST', users(), { auth: bearer, json: { email: 'panel@example.com' } });
      expect(write.status).toBe(401);
      expect(write.body.detail).toMatch(/API key/);
      expect((await call(gw.url, 'POST', '/v1/auth/session', { auth: bearer })).status).toBe(401);
      // the session is the client's: another client's project stays invisible
      const others = await call(gw.url, 'POST', '/v1/projects', { auth: other.auth, json: { name: 'Theirs' } });
      expect((await call(gw.url, 'GET', `/v1/projects/${others.body.id}`, { auth: bearer })).status).toBe(404);
    });

    it('an sdk key cannot open a session', async () => {
      const opened = await call(gw.url, 'POST', '/v1/auth/session', { auth: sdk.auth });
      expect(opened.status).toBe(403);
      expect(opened.body.detail).toMatch(/scope "full"/);
    });

    it('a forged or garbled token is a 401', async () => {
      const opened = await call(gw.url, 'POST', '/v1/auth/session', { auth: acme.auth });
      const [header, , signature] = (opened.body.token as string).split('.');
      const forgedPayload = Buffer.from(
        JSON.stringify({ sub: other.clientId, scope: 'full', iss: 'postbus', aud: 'postbus-admin', exp: 9999999999 }),
      ).toString('base64url');
      for (const token of [`${header}.${forgedPayload}.${signature}`, 'garbage']) {
        const res = await call(gw.url, 'GET', '/v1/projects', { auth: `Bearer ${token}` });
        expect(res.status).toBe(401);
        expect(res.headers.get('content-type')).toMatch(/problem\+json/);
      }
    });
  });

  describe('rate limit', () => {
    it('when a client sends more than its rate, then the surplus gets 429 with Retry-After and RateLimit headers', async () => {
      const limited = await startTestGateway({ RATE_LIMIT_PER_SECOND: '2', GATEWAY_DB_NAME: gw.dbName, KAFKA_NAMESPACE: gw.namespace });
      try {
        const fresh = await createTestClient(gw.config);
        const answers = await Promise.all(Array.from({ length: 8 }, () => call(limited.url, 'GET', '/v1/projects', { auth: fresh.auth })));
        const statuses = answers.map((a) => a.status);
        expect(statuses.filter((s) => s === 200)).toHaveLength(2);
        const refused = answers.find((a) => a.status === 429)!;
        expect(refused.headers.get('content-type')).toMatch(/problem\+json/);
        expect(refused.headers.get('retry-after')).toMatch(/^\d+$/);
        expect(refused.headers.get('ratelimit-policy')).toBe('"client";q=2;w=1');
        expect(refused.body).toMatchObject({ status: 429, type: '/problems/rate-limited' });
        // another client has its own allowance (a fresh one: counts are shared by every instance on
        // the namespace, so `other`'s requests to the main gateway a moment ago would weigh in)
        const second = await createTestClient(gw.config);
        expect((await call(limited.url, 'GET', '/v1/projects', { auth: second.auth })).status).toBe(200);
      } finally {
        await limited.stop();
      }
    });
  });

  describe('operational endpoints', () => {
    it('13.1 /metrics is served on the internal listener (INTERNAL_HOST) only, never on the public port', async () => {
      const onPublic = await call(gw.url, 'GET', '/metrics');
      expect(onPublic.status).toBe(404);
      expect(onPublic.text).not.toContain('process_cpu_seconds_total');
      expect((await call(gw.internalUrl, 'GET', '/metrics')).text).toContain('process_cpu_seconds_total');
      for (const address of otherLocalAddresses()) {
        expect([address, await portOpen(address, gw.gateway.internalPort)]).toEqual([address, false]);
        // the public API stays on every interface
        expect([address, await portOpen(address, gw.gateway.port)]).toEqual([address, true]);
      }
    });

    it('serve health, readiness, metrics, the OpenAPI document and its docs page', async () => {
      expect((await call(gw.url, 'GET', '/healthz')).status).toBe(200);
      expect((await call(gw.url, 'GET', '/readyz')).body).toMatchObject({ status: 'ready', checks: { database: true, bus: true } });
      const metrics = await call(gw.internalUrl, 'GET', '/metrics');
      expect(metrics.text).toContain('http_request_duration_seconds');
      const openapi = await call(gw.url, 'GET', '/v1/openapi.json');
      expect(openapi.body.openapi).toBe('3.1.0');
      expect(Object.keys(openapi.body.paths)).toEqual(
        expect.arrayContaining([
          '/v1/auth/session',
          '/v1/projects',
          '/v1/projects/{projectId}/users',
          '/v1/projects/{projectId}/users/by-email',
          '/v1/projects/{projectId}/users/erase',
          '/v1/erasures',
          '/v1/erasures/{erasureId}',
        ]),
      );
      expect(openapi.body.components.securitySchemes.bearer).toMatchObject({ type: 'http', scheme: 'bearer' });
      expect(openapi.body.paths['/v1/projects'].get.security).toEqual([{ basic: [] }, { bearer: [] }, { sessionCookie: [] }]);
      expect(openapi.body.paths['/v1/projects/{projectId}/users'].post.security).toEqual([{ basic: [] }]);
      expect(openapi.body.paths['/v1/projects/{projectId}/users'].post.requestBody.content['application/json'].schema.required).toEqual([
        'email',
      ]);
      const docs = await call(gw.url, 'GET', '/docs');
      expect(docs.text).toContain('swagger-ui-bundle.js');
      expect((await call(gw.url, 'GET', '/docs/init.js')).text).toContain('/v1/openapi.json');
      expect((await fetch(`${gw.url}/docs/assets/swagger-ui-bundle.js`)).status).toBe(200);
    });
  });
});
