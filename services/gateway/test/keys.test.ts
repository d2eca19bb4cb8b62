import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { connectDb } from '@postbus/db';
import { basicAuth, call, repoRoot, sleep, uniqueName } from '@postbus/testing';
import { hashApiKey, newApiKey } from '../src/domain/credentials';
import { createTestClient, startTestGateway, type TestClient, type TestGateway } from './helpers';

const run = promisify(execFile);

/** How long until every check answers 401, polling every 20 ms; fails past the deadline. */
async function msUntilRefused(checks: Array<() => Promise<number>>, deadlineMs = 3000): Promise<number> {
  const started = Date.now();
  for (;;) {
    const statuses = await Promise.all(checks.map((c) => c()));
    if (statuses.every((s) => s === 401)) return Date.now() - started;
    if (Date.now() - started > deadlineMs) throw new Error(`still accepted after ${deadlineMs} ms: ${statuses.join(', ')}`);
    await sleep(20);
  }
}

describe('API keys', () => {
  let a: TestGateway;
  let b: TestGateway;
  let acme: TestClient;
  let projectId: string;

  beforeAll(async () => {
    a = await startTestGateway();
    // a second instance of the same deployment: same database, same topics
    b = await startTestGateway({ GATEWAY_DB_NAME: a.dbName, KAFKA_NAMESPACE: a.namespace });
    acme = await createTestClient(a.config);
    const project = await call(a.url, 'POST', '/v1/projects', { auth: acme.auth, json: { name: 'Shop' } });
    expect(project.status).toBe(201);
    projectId = project.body.id;
  });

  afterAll(async () => {
    await b?.stop();
    await a?.stop();
  });

  const createKey = async (name: string, scope: 'full' | 'sdk', headers: Record<string, string> = {}) => {
    const res = await call(a.url, 'POST', '/v1/keys', { auth: acme.auth, json: { name, scope }, headers });
    expect(res.status).toBe(201);
    return { id: res.body.id as string, apiKey: res.body.api_key as string, auth: basicAuth(acme.clientId, res.body.api_key as string) };
  };

  it('13.3 an sdk key may send but not read a profile, messages, payments, nor open a session', async () => {
    const sdk = await createKey('checkout backend', 'sdk');
    const p = `/v1/projects/${projectId}`;
    // the data-plane operations pass the scope check (the unknown email is a 404: a missing prerequisite, not a 403)
    expect((await call(a.url, 'POST', `${p}/users`, { auth: sdk.auth, json: { email: 'ann@example.com' } })).status).toBe(200);
    expect(
      (await call(a.url, 'PATCH', `${p}/users/by-email`, { auth: sdk.auth, json: { email: 'ann@example.com', fields: { plan: 'pro' } } }))
        .status,
    ).toBe(200);
    const payment = { email: 'ann@example.com', payment_id: 'pay_1', amount: 1200, currency: 'EUR' };
    expect((await call(a.url, 'POST', `${p}/payments`, { auth: sdk.auth, json: payment })).status).toBe(200);
    expect((await call(a.url, 'POST', `${p}/users/unsubscribe`, { auth: sdk.auth, json: { email: 'ann@example.com' } })).status).toBe(200);
    expect(
      (await call(a.url, 'POST', `${p}/emails/welcome/send`, { auth: sdk.auth, json: { user: { email: 'ann@example.com' } } })).status,
    ).toBe(404);

    const reads: Array<[string, string]> = [
      ['GET', `${p}/users?email=ann%40example.com`],
      ['GET', `${p}/users/u-1`],
      ['GET', `${p}/messages`],
      ['GET', `${p}/messages/msg_1`],
      ['GET', `${p}/payments?email=ann%40example.com`],
      ['GET', `${p}/analytics/revenue`],
      ['GET', '/v1/erasures'],
      ['GET', '/v1/keys'],
      ['POST', '/v1/auth/session'],
    ];
    for (const [method, path] of reads) {
      const res = await call(a.url, method, path, { auth: sdk.auth });
      expect([method, path, res.status]).toEqual([method, path, 403]);
      expect(res.headers.get('content-type')).toMatch(/problem\+json/);
      expect(res.body.detail).toMatch(/scope "full".*scope "sdk"/);
    }
    // the full key still reads
    expect((await call(a.url, 'GET', `${p}/messages`, { auth: acme.auth })).status).not.toBe(403);
  });

  it('keys are created with a name and scope, listed without their secrets, with when they were last used', async () => {
    const made = await createKey('reporting', 'full');
    expect(made.id).toMatch(/^key_[0-9a-f]{20}$/);
    expect((await call(b.url, 'GET', '/v1/projects', { auth: made.auth })).status).toBe(200);
    const listed = await call(a.url, 'GET', '/v1/keys', { auth: acme.auth });
    expect(listed.status).toBe(200);
    expect(listed.text).not.toContain(made.apiKey);
    const entry = listed.body.data.find((k: { id: string }) => k.id === made.id);
    expect(entry).toMatchObject({ name: 'reporting', scope: 'full', revoked_at: null, created_at: expect.any(String) });
    // last_used_at is written off the request path
    await sleep(300);
    const later = await call(a.url, 'GET', '/v1/keys', { auth: acme.auth });
    expect(later.body.data.find((k: { id: string }) => k.id === made.id).last_used_at).toEqual(expect.any(String));
    // a session cannot mint keys that would outlive it
    const session = await call(a.url, 'POST', '/v1/auth/session', { auth: acme.auth });
    expect(
      (await call(a.url, 'POST', '/v1/keys', { auth: `Bearer ${session.body.token}`, json: { name: 'x', scope: 'full' } })).status,
    ).toBe(401);
    // another client's key is not found
    const other = await createTestClient(a.config);
    expect((await call(a.url, 'DELETE', `/v1/keys/${made.id}`, { auth: other.auth })).status).toBe(404);
    const openApi = await call(a.url, 'GET', '/v1/openapi.json');
    expect(openApi.body.paths['/v1/keys'].post.requestBody.content['application/json'].schema.required).toEqual(['name', 'scope']);
    expect(openApi.body.paths['/v1/keys/{keyId}'].delete.responses['200']).toBeDefined();
  });

  it('13.4 a revoked key is refused by every gateway instance within 1 s and its sessions die', async () => {
    const doomed = await createKey('leaked', 'full');
    // both instances have verified (and cached) it, and each holds a session it opened
    for (const gw of [a, b]) expect((await call(gw.url, 'GET', '/v1/projects', { auth: doomed.auth })).status).toBe(200);
    const sessionA = `Bearer ${(await call(a.url, 'POST', '/v1/auth/session', { auth: doomed.auth })).body.token}`;
    const sessionB = `Bearer ${(await call(b.url, 'POST', '/v1/auth/session', { auth: doomed.auth })).body.token}`;
    for (const [gw, session] of [
      [a, sessionA],
      [b, sessionB],
    ] as const)
      expect((await call(gw.url, 'GET', '/v1/projects', { auth: session })).status).toBe(200);

    const revoked = await call(a.url, 'DELETE', `/v1/keys/${doomed.id}`, { auth: acme.auth });
    expect(revoked.status).toBe(200);
    expect(revoked.body.revoked_at).toEqual(expect.any(String));
    const probe = (url: string, auth: string) => () => call(url, 'GET', '/v1/projects', { auth }).then((r) => r.status);
    const ms = await msUntilRefused([probe(a.url, doomed.auth), probe(b.url, doomed.auth), probe(a.url, sessionB), probe(b.url, sessionA)]);
    expect(ms).toBeLessThan(1000);
    // the key that made the request keeps working, and revoking again changes nothing
    expect((await call(b.url, 'DELETE', `/v1/keys/${doomed.id}`, { auth: acme.auth })).body.revoked_at).toBe(revoked.body.revoked_at);
  });

  it('13.4 a key revoked with the operator CLI is refused by every running gateway within 1 s', async () => {
    const doomed = await createKey('cli-revoked', 'sdk');
    for (const gw of [a, b])
      expect(
        (await call(gw.url, 'POST', `/v1/projects/${projectId}/users`, { auth: doomed.auth, json: { email: 'c@example.com' } })).status,
      ).toBe(200);
    const env = { ...process.env, GATEWAY_DB_NAME: a.dbName, KAFKA_NAMESPACE: a.namespace, LOG_LEVEL: 'error' };
    const cli = join(repoRoot, 'services/gateway/bin/postbus.js');
    const listed = await run(process.execPath, [cli, 'keys', 'list', '--client', acme.clientId, '--json'], { env });
    expect(JSON.parse(listed.stdout).data.map((k: { id: string }) => k.id)).toContain(doomed.id);
    await run(process.execPath, [cli, 'keys', 'revoke', '--client', acme.clientId, doomed.id], { env });
    const probe = (url: string) => () =>
      call(url, 'POST', `/v1/projects/${projectId}/users`, { auth: doomed.auth, json: { email: 'c@example.com' } }).then((r) => r.status);
    expect(await msUntilRefused([probe(a.url), probe(b.url)])).toBeLessThan(1000);
  });

  it('the operator CLI refuses a client whose first key would be a test key, and makes a test key for an existing client', async () => {
    const env = { ...process.env, GATEWAY_DB_NAME: a.dbName, KAFKA_NAMESPACE: a.namespace, LOG_LEVEL: 'error' };
    const cli = join(repoRoot, 'services/gateway/bin/postbus.js');
    const db = await connectDb({ url: a.config.MONGO_URL, dbName: a.dbName });
    try {
      const clientsBefore = await db.collection('clients').countDocuments({ name: 'Test only' });
      const refused = await run(process.execPath, [cli, 'clients', 'create', '--name', 'Test only', '--scope', 'test', '--json'], {
        env,
      }).then(
        () => ({ code: 0, stderr: '' }),
        (error: { code: number; stderr: string }) => ({ code: error.code, stderr: error.stderr }),
      );
      expect(refused.code).toBe(2);
      expect(refused.stderr).toMatch(/first key must have scope full or sdk/);
      expect(refused.stderr).toContain('postbus keys create --client CLIENT_ID --name NAME --scope test');
      expect(refused.stderr).toContain('POST /v1/keys');
      expect(await db.collection('clients').countDocuments({ name: 'Test only' })).toBe(clientsBefore);
    } finally {
      await db.close();
    }
    const made = await run(
      process.execPath,
      [cli, 'keys', 'create', '--client', acme.clientId, '--name', 'CI', '--scope', 'test', '--json'],
      { env },
    );
    const key = JSON.parse(made.stdout) as { id: string; scope: string; api_key: string };
    expect(key.scope).toBe('test');
    expect(key.api_key).toMatch(/^pb_test_/);
    // As a key POST /v1/keys made: it may read the message log (its test messages), nothing else.
    const testAuth = basicAuth(acme.clientId, key.api_key);
    expect((await call(a.url, 'GET', `/v1/projects/${projectId}`, { auth: testAuth })).status).toBe(403);
    expect((await call(a.url, 'POST', '/v1/keys', { auth: testAuth, json: { name: 'x', scope: 'full' } })).status).toBe(403);
  });

  it("a client's last full key cannot be revoked through the API: it would lock the client out", async () => {
    const lonely = await createTestClient(a.config);
    const res = await call(a.url, 'DELETE', `/v1/keys/${lonely.keyId}`, { auth: lonely.auth });
    expect(res.status).toBe(409);
    expect(res.body.type).toBe('/problems/last-full-key');
    expect((await call(a.url, 'GET', '/v1/keys', { auth: lonely.auth })).status).toBe(200);
  });

  it('keys stored the old way (an array on the client) still work and are listed with an id', async () => {
    const dbName = uniqueName('gw').replace(/-/g, '_');
    const db = await connectDb({ url: a.config.MONGO_URL, dbName });
    const apiKey = newApiKey('full');
    const hash = hashApiKey(apiKey).toString('hex');
    await db.collection('clients').insertOne({
      clientId: 'cl_legacy',
      name: 'Legacy',
      createdAt: new Date(),
      keys: [{ keyId: apiKey.slice(0, 12), hash, scope: 'full', createdAt: new Date(), revokedAt: null }],
    });
    await db.close();
    const old = await startTestGateway({ GATEWAY_DB_NAME: dbName });
    try {
      const auth = basicAuth('cl_legacy', apiKey);
      expect((await call(old.url, 'GET', '/v1/projects', { auth })).status).toBe(200);
      const listed = await call(old.url, 'GET', '/v1/keys', { auth });
      expect(listed.body.data).toEqual([expect.objectContaining({ id: `key_${hash.slice(0, 20)}`, scope: 'full', revoked_at: null })]);
    } finally {
      await old.stop();
    }
  });

  it('13.8 idempotent replays never store secrets (API keys, sessions)', async () => {
    const db = await connectDb({ url: a.config.MONGO_URL, dbName: a.dbName });
    try {
      const idempotencyKey = uniqueName('idem');
      const first = await call(a.url, 'POST', '/v1/keys', {
        auth: acme.auth,
        json: { name: 'idempotent', scope: 'sdk' },
        headers: { 'Idempotency-Key': idempotencyKey },
      });
      expect(first.status).toBe(201);
      const again = await call(a.url, 'POST', '/v1/keys', {
        auth: acme.auth,
        json: { name: 'idempotent', scope: 'sdk' },
        headers: { 'Idempotency-Key': idempotencyKey },
      });
      expect(again.status).toBe(409);
      expect(again.body.type).toBe('/problems/idempotency-secret-not-replayed');
      expect(again.text).not.toContain(first.body.api_key);
      const keys = await call(a.url, 'GET', '/v1/keys', { auth: acme.auth });
      expect(keys.body.data.filter((k: { name: string }) => k.name === 'idempotent')).toHaveLength(1);

      const sessionKey = uniqueName('idem');
      const session = await call(a.url, 'POST', '/v1/auth/session', { auth: acme.auth, headers: { 'Idempotency-Key': sessionKey } });
      expect(session.status).toBe(201);
      const sessionAgain = await call(b.url, 'POST', '/v1/auth/session', { auth: acme.auth, headers: { 'Idempotency-Key': sessionKey } });
      expect(sessionAgain.status).toBe(409);

      const stored = JSON.stringify(await db.collection('idempotency_responses').find({}).toArray());
      expect(stored).toContain(idempotencyKey);
      expect(stored).not.toContain(first.body.api_key);
      expect(stored).not.toContain(session.body.token);
    } finally {
      await db.close();
    }
  });

  it('13.10 rate limits are shared by all gateway instances (not per process)', async () => {
    // The per-minute edge limit runs on the same shared counters as the per-second API limit; its
    // minute-long window lets this test wait for A's counts to reach B without racing the window.
    const limits = { EDGE_RATE_LIMIT_PER_MINUTE: '10' };
    const limitedA = await startTestGateway(limits);
    const second = await startTestGateway({ ...limits, GATEWAY_DB_NAME: limitedA.dbName, KAFKA_NAMESPACE: limitedA.namespace });
    try {
      const open = (url: string) => call(url, 'GET', '/t/o/not-a-token').then((r) => r.status);
      const onA = await Promise.all(Array.from({ length: 10 }, () => open(limitedA.url)));
      expect(onA.filter((s) => s === 429)).toHaveLength(0);
      expect(await open(limitedA.url)).toBe(429);
      // B admits one request at a time until A's counts arrive on the bus: per process it would
      // admit 10 of its own, shared it refuses as soon as it hears of A's.
      let admittedOnB = 0;
      while ((await open(second.url)) !== 429 && admittedOnB < 10) {
        admittedOnB += 1;
        await sleep(250);
      }
      expect(admittedOnB).toBeLessThan(10);
    } finally {
      await second.stop();
      await limitedA.stop();
    }
  });

  it('13.10 an address that fails authentication too often is refused with 429, even with a valid key, on every instance; /t/* is limited per address', async () => {
    const first = await startTestGateway({ AUTH_FAILURE_LIMIT_PER_MINUTE: '5', EDGE_RATE_LIMIT_PER_MINUTE: '5' });
    const second = await startTestGateway({
      AUTH_FAILURE_LIMIT_PER_MINUTE: '5',
      EDGE_RATE_LIMIT_PER_MINUTE: '5',
      GATEWAY_DB_NAME: first.dbName,
      KAFKA_NAMESPACE: first.namespace,
    });
    try {
      const client = await createTestClient(first.config);
      const wrong = basicAuth(client.clientId, 'pb_full_guess');
      for (let i = 0; i < 5; i++) expect((await call(first.url, 'GET', '/v1/projects', { auth: wrong })).status).toBe(401);
      const blocked = await call(first.url, 'GET', '/v1/projects', { auth: wrong });
      expect(blocked.status).toBe(429);
      expect(blocked.headers.get('retry-after')).toMatch(/^\d+$/);
      expect(blocked.body.type).toBe('/problems/rate-limited');
      expect((await call(first.url, 'GET', '/v1/projects', { auth: client.auth })).status).toBe(429);
      await sleep(300);
      expect((await call(second.url, 'GET', '/v1/projects', { auth: client.auth })).status).toBe(429);

      const edge = [];
      for (let i = 0; i < 6; i++) edge.push(await call(first.url, 'GET', '/t/o/not-a-token'));
      expect(edge.slice(0, 5).map((r) => r.status)).toEqual([404, 404, 404, 404, 404]);
      expect(edge[5]!.status).toBe(429);
      expect(edge[5]!.headers.get('retry-after')).toMatch(/^\d+$/);
      expect(edge[5]!.headers.get('content-type')).toMatch(/text\/plain/);
    } finally {
      await second.stop();
      await first.stop();
    }
  });
});
