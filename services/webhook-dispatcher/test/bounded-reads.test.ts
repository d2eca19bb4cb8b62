import { connectDb, isPointFilter, recordQueries, type Connection } from '@postbus/db';
import type { Bus } from '@postbus/bus';
import { call, internalAuthorization, shutDown } from '@postbus/testing';
import type { Dispatcher } from '../src/app';
import { DeliveryErasure } from '../src/domain/erasure-participant';
import { DeliveryStore } from '../src/model/delivery.repository';
import { DeliveryRetention } from '../src/domain/delivery-retention';
import { EndpointStore } from '../src/model/endpoint.repository';
import { RetentionRuns } from '../src/model/retention-run.repository';
import { seedDeliveries, type SeedOptions } from '../src/seed-data';
import { SecretBox } from '@postbus/crypto';
import { createLogger } from '@postbus/logger';
import { startTestDispatcher, testDispatcherConfig } from './helpers';

/**
 * Issue 14: the delivery log, an erasure and retention at size, against the real MongoDB-wire
 * server, with QUERY_AUDIT strict (a scanning query on a request path fails the request).
 */
describe('webhook deliveries at size', () => {
  const config = testDispatcherConfig({ QUERY_AUDIT: 'strict' });
  const projectId = 'abcdefabcdefabcdefabcdef';
  const clientId = 'cl_bounded';
  let dispatcher: Dispatcher;
  let bus: Bus;
  let db: Connection;
  let deliveries: DeliveryStore;
  let quiet: string; // an endpoint with a few deliveries
  let busy: string; // an endpoint with 20,000
  let url: string;

  /** Seeds `count` deliveries of the endpoint, created from `since` to `until`, `person.count` of them about `person`. */
  const seed = (store: DeliveryStore, endpointId: string, count: number, since: Date, until: Date, person?: SeedOptions['person']) =>
    seedDeliveries(store, { endpointId, clientId, projectId, count, since, until, ...(person ? { person } : {}) });
  const get = async (path: string) =>
    call(url, 'GET', `/internal/clients/${clientId}/webhooks/${path}`, { auth: await internalAuthorization('webhook-dispatcher') });

  beforeAll(async () => {
    ({ dispatcher, bus } = await startTestDispatcher(config));
    url = `http://127.0.0.1:${dispatcher.port}`;
    db = await connectDb({ url: config.MONGO_URL, dbName: config.WEBHOOKS_DB_NAME });
    deliveries = new DeliveryStore(db);
    const endpoints = new EndpointStore(db, new SecretBox(config.SECRETS_KEY));
    await Promise.all([deliveries.init(), endpoints.init()]);
    const input = {
      url: 'https://example.org/hook',
      events: ['*'],
      projectId,
      description: null,
      enabled: false,
      format: 'standard' as const,
    };
    quiet = (await endpoints.create(clientId, input)).endpoint._id;
    busy = (await endpoints.create(clientId, input)).endpoint._id;
    const now = Date.now();
    const person = { email: 'many@example.org', userId: 'u-many', count: 1_500 };
    await seed(deliveries, busy, 20_000, new Date(now - 86_400_000), new Date(now - 60_000), person);
    await seed(deliveries, quiet, 120, new Date(now - 3_600_000), new Date(now));
  }, 600_000);

  afterAll(async () => {
    await db?.dropDatabase();
    await shutDown(db, bus, dispatcher);
  });

  it('14.1 a delivery-log page costs as many point reads at 20,000 deliveries of another endpoint, and of its own, as at 120', async () => {
    const paths = [
      `${quiet}/deliveries?limit=20`,
      `${busy}/deliveries?limit=20`,
      `${busy}/deliveries?limit=20&event_type=message.opened`,
      `${busy}/deliveries?limit=20&status=failed`,
    ];
    // Once each first: this process learns where each list ends (as the instance appending to it knows).
    for (const path of paths) expect((await get(path)).status).toBe(200);
    // Counted in queries, not timed (timings are the bench's business on a shared machine).
    const costs: Record<string, { queries: number; ms: number }> = {};
    for (const path of paths) {
      const recorder = recordQueries(['deliveries', 'attempts']);
      const started = performance.now();
      try {
        const res = await get(path);
        expect(res.status).toBe(200);
        expect(res.body.data).toHaveLength(20);
        for (const d of res.body.data) expect(d.attempts.length).toBeGreaterThanOrEqual(1);
      } finally {
        recorder.stop();
      }
      // Every query on the growing collections named one _id (inserts aside): no scan, no $in.
      expect(recorder.queries.length).toBeGreaterThan(0);
      expect(recorder.queries.filter((q) => !isPointFilter(q.filter))).toEqual([]);
      costs[path.replace(/we_[a-f0-9]+/, path.startsWith(quiet) ? 'quiet' : 'busy')] = {
        queries: recorder.queries.length,
        ms: performance.now() - started,
      };
    }
    console.log('delivery-log page costs', costs);
    // A scan's cost grows with the collection; a page of point reads costs the same at any size.
    const quietQueries = costs['quiet/deliveries?limit=20']!.queries;
    for (const { queries } of Object.values(costs)) expect(queries).toBeLessThanOrEqual(2 * quietQueries + 10);
  });

  it('14.1 pages newest first with a cursor, filters by status and event type checked against the current status', async () => {
    const all: Array<{ id: string; created_at: string }> = [];
    let cursor: string | null = null;
    do {
      const res = await get(`${quiet}/deliveries?limit=50${cursor ? `&cursor=${cursor}` : ''}`);
      expect(res.status).toBe(200);
      all.push(...res.body.data);
      cursor = res.body.next_cursor;
    } while (cursor);
    expect(all).toHaveLength(120);
    expect(new Set(all.map((d) => d.id)).size).toBe(120);
    const times = all.map((d) => Date.parse(d.created_at));
    expect([...times].sort((a, b) => b - a)).toEqual(times);

    const failed = await get(`${quiet}/deliveries?status=failed&limit=100`);
    expect(failed.body.data.length).toBe(2); // one in fifty
    expect(failed.body.data.every((d: { status: string }) => d.status === 'failed')).toBe(true);
    const opened = await get(`${quiet}/deliveries?event_type=message.opened&limit=100`);
    expect(opened.body.data).toHaveLength(24);
    expect(opened.body.data.every((d: { event_type: string }) => d.event_type === 'message.opened')).toBe(true);
    const openedSucceeded = await get(`${quiet}/deliveries?event_type=message.opened&status=succeeded&limit=100`);
    expect(
      openedSucceeded.body.data.every(
        (d: { event_type: string; status: string }) => d.event_type === 'message.opened' && d.status === 'succeeded',
      ),
    ).toBe(true);

    // A failed delivery retried by hand that succeeds leaves the failed filter, and shows once under
    // succeeded, at its place among the deliveries (newest first, as every filter but failed and pending).
    const target = failed.body.data[0] as { id: string; attempts: Array<{ attempt: number }> };
    await deliveries.recordAttempt({
      _id: `${target.id}:${target.attempts.length + 1}`,
      deliveryId: target.id,
      endpointId: quiet,
      attempt: target.attempts.length + 1,
      at: new Date(),
      statusCode: 200,
      latencyMs: 5,
      response: 'ok',
      error: null,
      outcome: 'succeeded',
    });
    const after = await get(`${quiet}/deliveries?status=failed&limit=100`);
    expect(after.body.data.map((d: { id: string }) => d.id)).not.toContain(target.id);
    const succeeded: Array<{ id: string; status: string; created_at: string }> = [];
    for (let next: string | null = null, first = true; first || next; first = false) {
      const res = await get(`${quiet}/deliveries?status=succeeded&limit=100${next ? `&cursor=${next}` : ''}`);
      succeeded.push(...res.body.data);
      next = res.body.next_cursor;
    }
    expect(succeeded.filter((d) => d.id === target.id)).toHaveLength(1);
    expect(succeeded).toHaveLength(119); // the other failed one is still failed
    expect(succeeded.every((d) => d.status === 'succeeded')).toBe(true);
    const created = succeeded.map((d) => Date.parse(d.created_at));
    expect([...created].sort((x, y) => y - x)).toEqual(created);

    // A cursor of another filter, or none of ours, is a 422.
    const page = await get(`${quiet}/deliveries?limit=10`);
    expect((await get(`${quiet}/deliveries?status=failed&cursor=${page.body.next_cursor}`)).status).toBe(422);
    expect((await get(`${quiet}/deliveries?cursor=bm90LW91cnM`)).status).toBe(422);
  });

  it('14.2 an erasure of a person with 1,500 deliveries completes in chunks of point deletes, and leaves everyone else', async () => {
    const subject = {
      erasureId: 'era_many',
      projectId,
      id: null,
      email: 'many@example.org',
      userId: 'u-many',
      before: new Date().toISOString(),
    };
    let heartbeats = 0;
    const recorder = recordQueries(['deliveries', 'attempts']);
    let erased: Record<string, number>;
    try {
      erased = await new DeliveryErasure({ deliveries }).erase(subject, { heartbeat: () => Promise.resolve(void heartbeats++) });
    } finally {
      recorder.stop();
    }
    expect(erased.deliveries).toBe(1_500);
    expect(erased.attempts).toBeGreaterThan(1_500);
    expect(heartbeats).toBeGreaterThanOrEqual(1_500 / 200);
    // No deleteMany, no $in, no scan of the bodies: each delivery and attempt by its _id.
    expect(recorder.queries.filter((q) => !isPointFilter(q.filter))).toEqual([]);
    expect(recorder.queries.some((q) => q.method === 'deleteOne')).toBe(true);
    const left = await get(`${busy}/deliveries?limit=100`);
    expect(left.body.data).toHaveLength(100);
    expect(JSON.stringify(left.body.data)).not.toContain('many@example.org');
    // Idempotent: a redelivered command finds nothing more.
    expect(await new DeliveryErasure({ deliveries }).erase(subject)).toEqual({ deliveries: 0, attempts: 0 });
  }, 120_000);

  it('14.2 retention deletes the deliveries older than the window with their attempts, in chunks by _id, once per interval', async () => {
    const old = deliveries;
    const endpoints = new EndpointStore(db, new SecretBox(config.SECRETS_KEY));
    const aged = (
      await endpoints.create(clientId, {
        url: 'https://example.org/aged',
        events: ['*'],
        projectId,
        description: null,
        enabled: false,
        format: 'standard',
      })
    ).endpoint._id;
    const now = Date.now();
    const { sampleDelivery: oldOne } = await seed(old, aged, 450, new Date(now - 40 * 86_400_000), new Date(now - 31 * 86_400_000));
    const { sampleDelivery: newOne } = await seed(old, aged, 30, new Date(now - 29 * 86_400_000), new Date(now - 86_400_000));
    const logger = createLogger({ service: 'test', level: 'error' });
    const claims = new RetentionRuns(db);
    await claims.init();
    const retention = (deliveriesStore: DeliveryStore) =>
      new DeliveryRetention({ deliveries: deliveriesStore, runs: claims, logger, retentionDays: 30, intervalMs: 3_600_000 });
    const first = retention(old);
    const recorder = recordQueries(['deliveries', 'attempts']);
    const at = new Date();
    let runs: Array<{ deliveries: number; attempts: number } | undefined>;
    try {
      runs = await Promise.all([first.runOnce(at), retention(old).runOnce(at)]);
    } finally {
      recorder.stop();
    }
    // One instance purged, the other saw the interval taken.
    expect(runs.filter((r) => r === undefined)).toHaveLength(1);
    expect(runs.find((r) => r !== undefined)!.deliveries).toBe(450);
    expect(recorder.queries.filter((q) => !isPointFilter(q.filter))).toEqual([]);
    expect(await old.delivery(oldOne!)).toBeNull();
    expect(await old.attemptsOf(oldOne!)).toEqual([]);
    expect(await old.delivery(newOne!)).not.toBeNull();
    const page = await get(`${aged}/deliveries?limit=100`);
    expect(page.body.data).toHaveLength(30);
    // The quiet and busy endpoints' deliveries are younger than the window: untouched.
    expect((await get(`${quiet}/deliveries?limit=5`)).body.data).toHaveLength(5);
  }, 300_000);
});
