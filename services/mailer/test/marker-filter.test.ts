import { createHmac } from 'node:crypto';
import { Bus } from '@postbus/bus';
import { Topics } from '@postbus/contracts';
import { connectDb, recordQueries, type Connection } from '@postbus/db';
import { createLogger } from '@postbus/logger';
import { defaultKafkaBrokers, defaultMongoUrl, uniqueDbName, uniqueName, waitFor } from '@postbus/testing';
import { watchMarkers } from '../src/start/consumers';
import { MarkerWatch } from '../src/domain/marker-watch';
import { Suppressions } from '../src/model/suppression.repository';

/**
 * Issue 47 on the real broker and MongoDB-wire server: two mailer instances' filters of the
 * suppression markers. A recipient whose marker the filter surely lacks costs no read; a marker
 * one instance stores reaches the other's filter within about a fetch; an instance whose
 * announcements' consumer stops reads every marker again.
 */
describe('the suppression marker filter of two mailer instances', () => {
  const namespace = uniqueName('t');
  const logger = createLogger({ service: 'mailer-test', level: 'error' });
  const hashAddress = (email: string) => createHmac('sha256', 'the erasure audit key of this test').update(email).digest('hex');
  const P = 'p-marker-filter';
  let db: Connection;
  const instances: Array<{ bus: Bus; markers: MarkerWatch; suppressions: Suppressions }> = [];

  beforeAll(async () => {
    db = await connectDb({ url: defaultMongoUrl(), dbName: uniqueDbName('t') });
    // A marker stored before either instance starts: the scan finds it.
    const before = new Suppressions(db, hashAddress);
    await before.init();
    await before.blockAll([{ projectId: P, email: 'old@example.org', reason: 'manual', at: new Date() }]);
    for (let i = 0; i < 2; i++) {
      const bus = new Bus({
        brokers: defaultKafkaBrokers().split(','),
        service: 'mailer-test',
        logger,
        namespace,
        partitions: 2,
        replicationFactor: 1,
      });
      await bus.ensureTopics([{ topic: Topics.SuppressionMarkers, partitions: 1 }]);
      await bus.publisher.connect();
      const markers = new MarkerWatch();
      const suppressions = new Suppressions(db, hashAddress, markers);
      await suppressions.init();
      await watchMarkers(bus, suppressions, markers, logger);
      instances.push({ bus, markers, suppressions });
    }
    await waitFor(() => instances.every(({ markers }) => markers.live()), {
      timeoutMs: 30_000,
      intervalMs: 100,
      what: 'both filters live',
    });
  }, 60_000);

  afterAll(async () => {
    for (const { bus } of instances) await bus.close().catch(() => undefined);
    await db?.close();
  });

  const markerReads = async (suppressions: Suppressions, email: string) => {
    const recorded = recordQueries(['suppressed_addresses']);
    try {
      const [reason] = await suppressions.reasons([{ projectId: P, email }]);
      return { reason, reads: recorded.queries.length };
    } finally {
      recorded.stop();
    }
  };

  it('skips the read of a marker surely not stored, and reads one the scan found', async () => {
    const [a] = instances;
    expect(await markerReads(a!.suppressions, 'never-suppressed@example.org')).toEqual({ reason: undefined, reads: 0 });
    expect(await markerReads(a!.suppressions, 'old@example.org')).toEqual({ reason: 'manual', reads: 1 });
  });

  it('hears a marker the other instance stored, and then suppresses that address too', async () => {
    const [a, b] = instances;
    const started = Date.now();
    await b!.suppressions.blockAll([{ projectId: P, email: 'new@example.org', reason: 'complaint', at: new Date() }]);
    expect(await markerReads(b!.suppressions, 'new@example.org')).toEqual({ reason: 'complaint', reads: 1 });
    await waitFor(async () => (await markerReads(a!.suppressions, 'new@example.org')).reason === 'complaint', {
      timeoutMs: 5_000,
      intervalMs: 20,
      what: 'the other instance to suppress the address',
    });
    // The announcement's consumer waits for at most its fetch wait (200 ms) before it hears.
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it('reads every marker again once its announcements stop coming in', async () => {
    const [a] = instances;
    await a!.bus.close();
    await waitFor(() => !a!.markers.live(), { timeoutMs: 5_000, intervalMs: 50, what: 'the filter to stop answering' });
    expect(await markerReads(a!.suppressions, 'never-suppressed@example.org')).toEqual({ reason: undefined, reads: 1 });
  });
});
