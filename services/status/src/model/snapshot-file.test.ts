import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { engineOnClock } from '../../test/test-engine';
import { ComponentIds } from '../domain/components';
import { SnapshotFile } from './snapshot-file';

describe('the snapshot file', () => {
  it('its round trip gives another engine the same state, with Dates', async () => {
    const first = engineOnClock();
    first.check(ComponentIds.mailer, 'operational');
    first.check(ComponentIds.mailer, 'major_outage', 3);
    first.engine.scheduleMaintenance({
      name: 'Later',
      componentIds: [ComponentIds.relay],
      scheduledFor: new Date('2026-04-01T00:00:00Z'),
      scheduledUntil: new Date('2026-04-01T01:00:00Z'),
    });
    first.engine.recordCanary({ at: first.clock(), delayMs: 1200 });
    const file = new SnapshotFile(join(mkdtempSync(join(tmpdir(), 'status-')), 'nested', 'snapshot.json'));
    await file.write(first.engine.saved());

    const second = engineOnClock();
    const saved = await file.read();
    second.engine.restore(saved!);
    const a = first.engine.snapshot();
    const b = second.engine.snapshot();
    expect(b.incidents).toEqual(a.incidents);
    expect(b.maintenances).toEqual(a.maintenances);
    expect(b.canary).toEqual(a.canary);
    expect(b.days).toEqual(a.days);
    expect(b.components.find((c) => c.id === ComponentIds.mailer)).toEqual(a.components.find((c) => c.id === ComponentIds.mailer));
    expect(b.incidents[0]!.createdAt).toBeInstanceOf(Date);
    expect(b.version).toBeGreaterThanOrEqual(a.version);
    // The damping state came along: two good checks (not one) bring the mailer back.
    second.check(ComponentIds.mailer, 'operational');
    expect(second.component(ComponentIds.mailer).status).toBe('major_outage');
    second.check(ComponentIds.mailer, 'operational');
    expect(second.component(ComponentIds.mailer).status).toBe('operational');
    expect(second.engine.snapshot().incidents[0]!.status).toBe('resolved');
  });

  it('a missing snapshot file is a first start', async () => {
    const file = new SnapshotFile(join(mkdtempSync(join(tmpdir(), 'status-')), 'none.json'));
    await expect(file.read()).resolves.toBeUndefined();
  });
});
