import { connectDb, isPointFilter, onRequestPath, recordQueries, type Connection, type RecordedQuery } from '@postbus/db';
import { call, defaultMongoUrl, uniqueName } from '@postbus/testing';
import { IdempotencyRepository } from '../src/model/idempotency.repository';
import { createTestClient, startTestGateway, type TestClient, type TestGateway } from './helpers';

const notByIdAlone = (recorded: RecordedQuery[]) => recorded.filter((q) => !isPointFilter(q.filter));

const COLLECTIONS = ['idempotency_claims', 'idempotency_responses'];

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
        expect(await repo.findResponse('cl_a', 'key-1', notBefore)).toBeNull();
        expect(await repo.claim('cl_a', 'key-1', 'f1', notBefore)).toEqual({ claimed: true });
        expect(await repo.claim('cl_a', 'key-1', 'f2', notBefore)).toEqual({
          claimed: false,
          fingerprint: 'f1',
          createdAt: expect.any(Date),
        });
        // Another client's key of the same name is its own.
        expect(await repo.claim('cl_b', 'key-1', 'f9', notBefore)).toEqual({ claimed: true });
        await repo.storeResponse({ clientId: 'cl_a', key: 'key-1', fingerprint: 'f1', status: 200, body: { ok: true } });
        expect(await repo.findResponse('cl_a', 'key-1', notBefore)).toMatchObject({ fingerprint: 'f1', status: 200, body: { ok: true } });
        await repo.release('cl_b', 'key-1');
        expect(await repo.claim('cl_b', 'key-1', 'f9', notBefore)).toEqual({ claimed: true });
        // Past the window: the answer is not replayed, and the expired claim gives way to a new one.
        const later = new Date(Date.now() + 1_000);
        expect(await repo.findResponse('cl_a', 'key-1', later)).toBeNull();
        expect(await repo.claim('cl_a', 'key-1', 'f3', later)).toEqual({ claimed: true });
        expect(await repo.findResponse('cl_a', 'key-1', new Date(0))).toBeNull();
      });
    } finally {
      recorder.stop();
    }
    expect(recorder.queries.length).toBeGreaterThan(5);
    expect(notByIdAlone(recorder.queries)).toEqual([]);
  });

  it('14.3 records older than the retention are purged in chunks of point deletes; younger ones and re-claimed keys stay', async () => {
    await repo.purgeOlderThan(new Date()); // the records of the test before
    const keys = Array.from({ length: 450 }, (_, i) => `old-${i}`);
    for (let i = 0; i < keys.length; i += 50) {
      await Promise.all(
        keys.slice(i, i + 50).map(async (key) => {
          await repo.claim('cl_p', key, 'f');
          await repo.storeResponse({ clientId: 'cl_p', key, fingerprint: 'f', status: 200, body: {} });
        }),
      );
    }
    await new Promise((r) => setTimeout(r, 20));
    const cutoff = new Date();
    await new Promise((r) => setTimeout(r, 20));
    await repo.claim('cl_p', 'young', 'f');
    await repo.storeResponse({ clientId: 'cl_p', key: 'young', fingerprint: 'f', status: 200, body: {} });
    // Expired and claimed again after the cutoff: its new records stay.
    await repo.claim('cl_p', 'old-0', 'g', new Date(Date.now() + 1));

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
    expect(await repo.findResponse('cl_p', 'old-1', new Date(0))).toBeNull();
    expect(await repo.findResponse('cl_p', 'young', new Date(0))).not.toBeNull();
    expect(await repo.claim('cl_p', 'old-0', 'x')).toEqual({ claimed: false, fingerprint: 'g', createdAt: expect.any(Date) });
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
