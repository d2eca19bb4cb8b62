import { createHash } from 'node:crypto';
import { connectDb, isPointFilter, onRequestPath, recordQueries, type Connection, type RecordedQuery } from '@postbus/db';
import {
  basicAuth,
  call,
  defaultKafkaBrokers,
  defaultMongoUrl,
  TopicRecorder,
  uniqueName,
  waitFor,
  type LocalDnsServer,
} from '@postbus/testing';
import { newIdempotencyNonce } from '../src/domain/batch-send';
import { IdempotencyRepository, type IdempotencyOwner } from '../src/model/idempotency.repository';
import { createTestClient, startTestGateway, withDnsGateway, type TestClient, type TestGateway } from './helpers';

const notByIdAlone = (recorded: RecordedQuery[]) => recorded.filter((q) => !isPointFilter(q.filter));

const COLLECTIONS = ['idempotency_claims', 'idempotency_responses'];

/** The records of a client's live keys (full, sdk) and of its test keys. */
const liveKeysOf = (clientId: string): IdempotencyOwner => ({ clientId, test: false });
const testKeysOf = (clientId: string): IdempotencyOwner => ({ clientId, test: true });

/** Issue 14.3: idempotency records are addressed by `_id` on every request, and purged in chunks of point deletes. */
describe('idempotency records', () => {
  let db: Connection;
  let repo: IdempotencyRepository;

  beforeAll(async () => {
    db = await connectDb({ url: defaultMongoUrl(), dbName: uniqueName('idem').replace(/-/g, '_') });
    repo = new IdempotencyRepository(db);
    await repo.init();
  });

  afterAll(async () => {
    await db?.dropDatabase();
    await db?.close();
  });

  it('14.3 a claim, its answer, a replay, a mismatch and a release read and write by _id only (QUERY_AUDIT strict)', async () => {
    const recorder = recordQueries(COLLECTIONS);
    try {
      await onRequestPath('strict', async () => {
        const notBefore = new Date(Date.now() - 86_400_000);
        expect(await repo.findResponse(liveKeysOf('cl_a'), 'key-1', notBefore)).toBeNull();
        const first = await repo.claim(liveKeysOf('cl_a'), 'key-1', 'f1', notBefore, newIdempotencyNonce);
        expect(first).toEqual({ claimed: true, nonce: expect.stringMatching(/^[0-9a-f]{32}$/) });
        expect(await repo.claim(liveKeysOf('cl_a'), 'key-1', 'f2', notBefore, newIdempotencyNonce)).toEqual({
          claimed: false,
          fingerprint: 'f1',
          createdAt: expect.any(Date),
          nonce: first.nonce,
        });
        // Another client's key of the same name is its own.
        expect(await repo.claim(liveKeysOf('cl_b'), 'key-1', 'f9', notBefore, newIdempotencyNonce)).toEqual({
          claimed: true,
          nonce: expect.stringMatching(/^[0-9a-f]{32}$/),
        });
        await repo.storeResponse(liveKeysOf('cl_a'), { key: 'key-1', fingerprint: 'f1', status: 200, body: { ok: true } });
        expect(await repo.findResponse(liveKeysOf('cl_a'), 'key-1', notBefore)).toMatchObject({
          fingerprint: 'f1',
          status: 200,
          body: { ok: true },
        });
        await repo.release(liveKeysOf('cl_b'), 'key-1');
        expect(await repo.claim(liveKeysOf('cl_b'), 'key-1', 'f9', notBefore, newIdempotencyNonce)).toEqual({
          claimed: true,
          nonce: expect.stringMatching(/^[0-9a-f]{32}$/),
        });
        // Past the window: the answer is not replayed, and the expired claim gives way to a new one.
        const later = new Date(Date.now() + 1_000);
        expect(await repo.findResponse(liveKeysOf('cl_a'), 'key-1', later)).toBeNull();
        expect(await repo.claim(liveKeysOf('cl_a'), 'key-1', 'f3', later, newIdempotencyNonce)).toEqual({
          claimed: true,
          nonce: expect.stringMatching(/^[0-9a-f]{32}$/),
        });
        expect(await repo.findResponse(liveKeysOf('cl_a'), 'key-1', new Date(0))).toBeNull();
      });
    } finally {
      recorder.stop();
    }
    expect(recorder.queries.length).toBeGreaterThan(5);
    expect(notByIdAlone(recorder.queries)).toEqual([]);
  });

  it('45.9 a failed attempt keeps its claim and its nonce: the retry takes it over with the same nonce, read and written by _id only', async () => {
    const recorder = recordQueries(COLLECTIONS);
    try {
      await onRequestPath('strict', async () => {
        const notBefore = new Date(Date.now() - 86_400_000);
        const first = await repo.claim(liveKeysOf('cl_f'), 'send-1', 'body', notBefore, newIdempotencyNonce);
        await repo.failed(liveKeysOf('cl_f'), 'send-1');
        const again = await repo.claim(liveKeysOf('cl_f'), 'send-1', 'body', notBefore, newIdempotencyNonce);
        expect(again).toMatchObject({ claimed: false, fingerprint: 'body', nonce: first.nonce, failedAt: expect.any(Date) });
        await repo.retake(liveKeysOf('cl_f'), 'send-1');
        const retaken = await repo.claim(liveKeysOf('cl_f'), 'send-1', 'body', notBefore, newIdempotencyNonce);
        expect(retaken).toMatchObject({ claimed: false, nonce: first.nonce, attemptAt: expect.any(Date) });
        expect(retaken).not.toHaveProperty('failedAt');
      });
    } finally {
      recorder.stop();
    }
    expect(notByIdAlone(recorder.queries)).toEqual([]);
  });

  it('45.8 a client’s test keys and live keys each have their own records of a key, read by _id only', async () => {
    const recorder = recordQueries(COLLECTIONS);
    try {
      await onRequestPath('strict', async () => {
        const notBefore = new Date(Date.now() - 86_400_000);
        expect(await repo.claim(testKeysOf('cl_s'), 'order-1', 'same body', notBefore, newIdempotencyNonce)).toEqual({
          claimed: true,
          nonce: expect.stringMatching(/^[0-9a-f]{32}$/),
        });
        await repo.storeResponse(testKeysOf('cl_s'), { key: 'order-1', fingerprint: 'same body', status: 200, body: { id: 'msg_test' } });
        // The live keys' key of the same name is free, though a test send answered it.
        expect(await repo.findResponse(liveKeysOf('cl_s'), 'order-1', notBefore)).toBeNull();
        expect(await repo.claim(liveKeysOf('cl_s'), 'order-1', 'same body', notBefore, newIdempotencyNonce)).toEqual({
          claimed: true,
          nonce: expect.stringMatching(/^[0-9a-f]{32}$/),
        });
        await repo.storeResponse(liveKeysOf('cl_s'), { key: 'order-1', fingerprint: 'same body', status: 200, body: { id: 'msg_live' } });
        expect(await repo.findResponse(testKeysOf('cl_s'), 'order-1', notBefore)).toMatchObject({ test: true, body: { id: 'msg_test' } });
        const live = await repo.findResponse(liveKeysOf('cl_s'), 'order-1', notBefore);
        expect(live).toMatchObject({ body: { id: 'msg_live' } });
        expect(live).not.toHaveProperty('test');
        // Releasing one leaves the other's claim.
        await repo.release(testKeysOf('cl_s'), 'order-1');
        expect(await repo.claim(liveKeysOf('cl_s'), 'order-1', 'x', notBefore, newIdempotencyNonce)).toMatchObject({
          claimed: false,
          fingerprint: 'same body',
        });
      });
    } finally {
      recorder.stop();
    }
    expect(notByIdAlone(recorder.queries)).toEqual([]);
  });

  it('45.8 an answer stored before test keys had records of their own still replays to the live keys, and not to a test key', async () => {
    // As written then: `_id` the hash of client and key, no `test` field.
    const _id = createHash('sha256').update('cl_old\nrelease-1').digest('hex');
    await db.collection('idempotency_responses').insertOne({
      _id,
      clientId: 'cl_old',
      key: 'release-1',
      fingerprint: 'f',
      status: 201,
      body: { id: 'prj_1' },
      createdAt: new Date(),
    } as never);
    expect(await repo.findResponse(liveKeysOf('cl_old'), 'release-1', new Date(0))).toMatchObject({ status: 201, body: { id: 'prj_1' } });
    expect(await repo.findResponse(testKeysOf('cl_old'), 'release-1', new Date(0))).toBeNull();
  });

  it('14.3 records older than the retention are purged in chunks of point deletes; younger ones and re-claimed keys stay', async () => {
    await repo.purgeOlderThan(new Date()); // the records of the test before
    const keys = Array.from({ length: 450 }, (_, i) => `old-${i}`);
    for (let i = 0; i < keys.length; i += 50) {
      await Promise.all(
        keys.slice(i, i + 50).map(async (key) => {
          await repo.claim(liveKeysOf('cl_p'), key, 'f', new Date(0), newIdempotencyNonce);
          await repo.storeResponse(liveKeysOf('cl_p'), { key, fingerprint: 'f', status: 200, body: {} });
        }),
      );
    }
    await new Promise((r) => setTimeout(r, 20));
    const cutoff = new Date();
    await new Promise((r) => setTimeout(r, 20));
    await repo.claim(liveKeysOf('cl_p'), 'young', 'f', new Date(0), newIdempotencyNonce);
    await repo.storeResponse(liveKeysOf('cl_p'), { key: 'young', fingerprint: 'f', status: 200, body: {} });
    // Expired and claimed again after the cutoff: its new records stay.
    await repo.claim(liveKeysOf('cl_p'), 'old-0', 'g', new Date(Date.now() + 1), newIdempotencyNonce);

    const recorder = recordQueries(COLLECTIONS);
    let removed: number;
    try {
      removed = await repo.purgeOlderThan(cutoff);
    } finally {
      recorder.stop();
    }
    expect(removed).toBe(449 * 2);
    expect(notByIdAlone(recorder.queries)).toEqual([]);
    expect(recorder.queries.filter((q) => q.method === 'deleteMany')).toEqual([]);
    expect(await repo.findResponse(liveKeysOf('cl_p'), 'old-1', new Date(0))).toBeNull();
    expect(await repo.findResponse(liveKeysOf('cl_p'), 'young', new Date(0))).not.toBeNull();
    expect(await repo.claim(liveKeysOf('cl_p'), 'old-0', 'x', new Date(0), newIdempotencyNonce)).toEqual({
      claimed: false,
      fingerprint: 'g',
      createdAt: expect.any(Date),
      nonce: expect.stringMatching(/^[0-9a-f]{32}$/),
    });
    expect(await repo.purgeOlderThan(cutoff)).toBe(0);
  }, 120_000);
});

describe('Idempotency-Key through the gateway with QUERY_AUDIT strict', () => {
  let gw: TestGateway;
  let acme: TestClient;

  beforeAll(async () => {
    gw = await startTestGateway({ QUERY_AUDIT: 'strict' });
    acme = await createTestClient(gw.config);
  });

  afterAll(async () => {
    await gw?.stop();
  });

  it('14.3 replays the first answer, refuses another body with the key, and never scans', async () => {
    const first = await call(gw.url, 'POST', '/v1/projects', {
      auth: acme.auth,
      json: { name: 'Idem' },
      headers: { 'idempotency-key': 'p-1' },
    });
    const again = await call(gw.url, 'POST', '/v1/projects', {
      auth: acme.auth,
      json: { name: 'Idem' },
      headers: { 'idempotency-key': 'p-1' },
    });
    const other = await call(gw.url, 'POST', '/v1/projects', {
      auth: acme.auth,
      json: { name: 'Else' },
      headers: { 'idempotency-key': 'p-1' },
    });
    expect(first.status).toBe(201);
    expect(again.status).toBe(201);
    expect(again.body).toEqual(first.body);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(other.status).toBe(422);
    expect(other.body.type).toBe('/problems/idempotency-key-reused');
  });
});

/** Issue 45.8: a live send that repeats a test send's Idempotency-Key is sent, not answered with the test message. */
describe('one Idempotency-Key used by a test key and by a live key of the same client', () => {
  let dns: LocalDnsServer;
  let gw: TestGateway;
  let acme: TestClient;
  let triggers: TopicRecorder;
  let p: string;
  let testKey: string;
  let sdkKey: string;

  withDnsGateway((started) => ({ dns, gw, acme } = started));
  const api = (method: string, path: string, json?: unknown) =>
    call(gw.url, method, path, { auth: acme.auth, ...(json !== undefined ? { json } : {}) });

  beforeAll(async () => {
    triggers = await new TopicRecorder(defaultKafkaBrokers().split(','), [`postbus.email.commands.v1.${gw.namespace}`]).start();
    const domain = await api('POST', '/v1/sender-domains', { domain: 'mail.idem.example' });
    for (const record of domain.body.records as Array<{ name: string; type: 'TXT' | 'CNAME'; value: string }>)
      dns.publish(record.name, record.type, [record.value]);
    expect((await api('POST', `/v1/sender-domains/${domain.body.id}/verify`)).body.status).toBe('verified');
    const project = await api('POST', '/v1/projects', {
      name: 'Idem',
      sender_domain_id: domain.body.id,
      from_email: 'hi@mail.idem.example',
    });
    p = `/v1/projects/${project.body.id}`;
    const template = await api('POST', `${p}/templates`, { name: 'T', subject: 'Order {{data.order}}', html: '<p>x</p>' });
    expect((await api('POST', `${p}/emails`, { key: 'receipt', name: 'Receipt', template_id: template.body.id })).status).toBe(201);
    const keyOf = async (scope: 'test' | 'sdk') =>
      basicAuth(acme.clientId, (await api('POST', '/v1/keys', { name: scope, scope })).body.api_key as string);
    testKey = await keyOf('test');
    sdkKey = await keyOf('sdk');
  });
  afterAll(() => triggers?.stop());

  const send = (auth: string) =>
    call(gw.url, 'POST', `${p}/emails/receipt/send`, {
      auth,
      json: { user: { email: 'ann@idem.example' }, data: { order: 4711 } },
      headers: { 'idempotency-key': 'order-4711-receipt' },
    });

  it('gives each its own message, and a repeat of each replays its own answer', async () => {
    const testFirst = await send(testKey);
    const liveFirst = await send(acme.auth);
    expect([testFirst.status, liveFirst.status]).toEqual([200, 200]);
    expect(liveFirst.headers.get('idempotent-replayed')).toBeNull();
    expect(liveFirst.body.message_id).not.toBe(testFirst.body.message_id);

    const testAgain = await send(testKey);
    const liveAgain = await send(acme.auth);
    // The live keys share their records: an sdk key's repeat is the full key's answer.
    const sdkAgain = await send(sdkKey);
    expect(testAgain.body).toEqual(testFirst.body);
    expect(liveAgain.body).toEqual(liveFirst.body);
    expect(sdkAgain.body).toEqual(liveFirst.body);
    for (const again of [testAgain, liveAgain, sdkAgain]) expect(again.headers.get('idempotent-replayed')).toBe('true');

    // Queued once each: the test message as a test, the live one as real mail.
    const queued = (messageId: string) =>
      waitFor(() => triggers.messages.find((m) => (m.value as { messageId: string }).messageId === messageId), { what: messageId });
    expect((await queued(testFirst.body.message_id as string)).value).toMatchObject({ test: true });
    expect((await queued(liveFirst.body.message_id as string)).value).not.toHaveProperty('test');
    const mine = [testFirst.body.message_id, liveFirst.body.message_id];
    expect(triggers.messages.filter((m) => mine.includes((m.value as { messageId: string }).messageId))).toHaveLength(2);
  });
});
