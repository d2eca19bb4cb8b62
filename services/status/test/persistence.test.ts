import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import mongoose from 'mongoose';
import { createLogger } from '@postbus/logger';
import { defaultMongoUrl, uniqueName, waitFor } from '@postbus/testing';
import { ComponentIds } from '../src/domain/components';
import type { StatusEngine } from '../src/domain/status-engine';
import { Persistence } from '../src/model/persistence';
import { SnapshotFile } from '../src/model/snapshot-file';
import { testEngine } from './test-engine';

const logger = createLogger({ service: 'status-test', level: 'error' });
const newEngine = () => testEngine({ staleAfterMs: () => 60_000 });

describe('status persistence on the real MongoDB-wire server', () => {
  const dbName = uniqueName('status').replace(/-/g, '_');
  const started: Persistence[] = [];
  const start = async (engine: StatusEngine, options: { mongoUrl?: string; file?: string } = {}) => {
    const persistence = new Persistence({
      engine,
      file: new SnapshotFile(options.file ?? join(mkdtempSync(join(tmpdir(), 'status-')), 'snapshot.json')),
      mongoUrl: options.mongoUrl ?? defaultMongoUrl(),
      dbName,
      logger,
      flushIntervalMs: 200,
      snapshotIntervalMs: 200,
    });
    started.push(persistence);
    await persistence.start();
    return persistence;
  };

  afterAll(async () => {
    await Promise.all(started.map((p) => p.stop()));
    const db = await mongoose.createConnection(defaultMongoUrl(), { dbName }).asPromise();
    await db.dropDatabase();
    await db.close();
  });

  it('when a second instance starts without a snapshot file, it catches up from the database', async () => {
    const first = newEngine();
    const persistence = await start(first);
    await waitFor(() => persistence.currentConnection() !== undefined, { what: 'the database connection' });
    const incident = first.openIncident({
      name: 'Relay slow',
      body: 'Investigating.',
      impact: 'minor',
      componentIds: [ComponentIds.relay],
    });
    first.record({ componentId: ComponentIds.relay, at: new Date(), status: 'operational', detail: 'ok' });
    // Taken from the engine is not yet written: wait for the rows themselves (a flush takes the
    // pending changes, then writes them).
    const written = persistence.currentConnection()!;
    await waitFor(
      async () =>
        first.pendingCount() === 0 &&
        (await written.collection<{ _id: string }>('incidents').countDocuments({ _id: incident.id })) === 1 &&
        (await written.collection('checks').countDocuments({ componentId: ComponentIds.relay })) === 1,
      { timeoutMs: 10_000, what: 'the writes to reach the database' },
    );

    const second = newEngine();
    const catchingUp = await start(second);
    await waitFor(() => catchingUp.currentConnection() !== undefined, { what: 'the second connection' });
    expect(second.incident(incident.id)).toMatchObject({ name: 'Relay slow', impact: 'minor', status: 'investigating' });
    expect(second.incident(incident.id)!.createdAt).toBeInstanceOf(Date);
    const db = catchingUp.currentConnection()!;
    expect(await db.collection('checks').countDocuments({ componentId: ComponentIds.relay })).toBe(1);
  });

  it('when the database is unreachable, it keeps the writes and serves from the snapshot file', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'status-')), 'snapshot.json');
    const engine = newEngine();
    const persistence = await start(engine, { mongoUrl: 'mongodb://127.0.0.1:1', file });
    engine.openIncident({ name: 'Offline', body: 'Written while the database is down.' });
    await persistence.flush();
    expect(engine.pendingCount()).toBeGreaterThan(0);
    await persistence.writeSnapshot();

    const restarted = newEngine();
    await start(restarted, { mongoUrl: 'mongodb://127.0.0.1:1', file });
    expect(restarted.snapshot().incidents.map((i) => i.name)).toEqual(['Offline']);
  });
});
