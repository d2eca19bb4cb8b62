import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ComponentIds } from './components';
import type { ComponentStatus, StatusEvent } from './model';
import { testEngine } from '../../test/test-engine';
import { SnapshotFile } from '../model/snapshot-file';

/** An engine on a clock the test moves by hand. */
function setUp() {
  let now = new Date('2026-03-01T10:00:00Z');
  const clock = () => new Date(now);
  const engine = testEngine({ clock });
  const events: StatusEvent[] = [];
  engine.onEvent((e) => events.push(e));
  const advance = (ms: number) => {
    now = new Date(now.getTime() + ms);
    engine.tick();
  };
  const check = (componentId: string, status: ComponentStatus, times = 1) => {
    for (let i = 0; i < times; i++) {
      engine.record({ componentId, at: clock(), status, detail: status === 'operational' ? 'ready' : 'connection refused' });
      advance(1000);
    }
  };
  const component = (id: string) => engine.snapshot().components.find((c) => c.id === id)!;
  return { engine, events, advance, check, component, clock };
}

describe('status engine', () => {
  it('when the mailer fails three checks in a row, Sending shows it down and an automatic incident opens', () => {
    const { engine, check, component } = setUp();
    check(ComponentIds.mailer, 'operational');
    check(ComponentIds.mailer, 'major_outage', 2);
    expect(component(ComponentIds.mailer).status).toBe('operational');
    expect(engine.snapshot().incidents).toHaveLength(0);

    check(ComponentIds.mailer, 'major_outage');
    expect(component(ComponentIds.mailer)).toMatchObject({ status: 'major_outage', detail: 'connection refused' });
    const [incident] = engine.snapshot().incidents;
    expect(incident).toMatchObject({ automatic: true, status: 'investigating', impact: 'critical', componentIds: [ComponentIds.mailer] });
    expect(incident!.updates[0]!.affected).toEqual([
      { componentId: ComponentIds.mailer, oldStatus: 'operational', newStatus: 'major_outage' },
    ]);
  });

  it('when a second component fails, the open automatic incident is updated rather than another opened', () => {
    const { engine, check } = setUp();
    check(ComponentIds.relay, 'operational');
    check(ComponentIds.mailer, 'operational');
    check(ComponentIds.relay, 'degraded_performance', 3);
    check(ComponentIds.mailer, 'major_outage', 3);
    const incidents = engine.snapshot().incidents;
    expect(incidents).toHaveLength(1);
    expect(incidents[0]).toMatchObject({ impact: 'critical', componentIds: [ComponentIds.relay, ComponentIds.mailer] });
    expect(incidents[0]!.updates).toHaveLength(2);
  });

  it('when a component fails long after an automatic incident opened, it gets an incident of its own', () => {
    const { engine, check, advance } = setUp();
    check(ComponentIds.mailer, 'operational');
    check(ComponentIds.relay, 'operational');
    check(ComponentIds.relay, 'major_outage', 3);
    for (let i = 0; i < 10; i++) {
      advance(60_000);
      check(ComponentIds.mailer, 'operational');
    }
    check(ComponentIds.mailer, 'major_outage', 3);
    expect(engine.snapshot().incidents.map((i) => i.componentIds)).toEqual([[ComponentIds.mailer], [ComponentIds.relay]]);
  });

  it('when the components recover, the automatic incident is resolved by itself, after both are back', () => {
    const { engine, check, events } = setUp();
    check(ComponentIds.relay, 'operational');
    check(ComponentIds.mailer, 'operational');
    check(ComponentIds.relay, 'major_outage', 3);
    check(ComponentIds.mailer, 'major_outage', 3);
    check(ComponentIds.relay, 'operational', 2);
    expect(engine.snapshot().incidents[0]!.status).toBe('investigating');
    check(ComponentIds.mailer, 'operational', 2);
    const [incident] = engine.snapshot().incidents;
    expect(incident!.status).toBe('resolved');
    expect(incident!.resolvedAt).toBeInstanceOf(Date);
    expect(events.filter((e) => e.kind === 'incident').map((e) => (e.kind === 'incident' ? e.update.status : ''))).toEqual([
      'investigating',
      'investigating',
      'investigating',
      'resolved',
    ]);
  });

  it('maps the first status to the impact: degraded opens a minor incident', () => {
    const { engine, check } = setUp();
    check(ComponentIds.dispatcher, 'operational');
    check(ComponentIds.dispatcher, 'degraded_performance', 3);
    expect(engine.snapshot().incidents[0]!.impact).toBe('minor');
  });

  it('when a probe stops reporting, its component becomes unknown, never stays operational', () => {
    const { check, advance, component } = setUp();
    check(ComponentIds.kafka, 'operational');
    advance(25_000);
    expect(component(ComponentIds.kafka).status).toBe('operational');
    advance(10_000);
    expect(component(ComponentIds.kafka).status).toBe('unknown');
    expect(component(ComponentIds.kafka).detail).toMatch(/stopped reporting/);
    check(ComponentIds.kafka, 'operational');
    expect(component(ComponentIds.kafka).status).toBe('operational');
  });

  it('an incident opened by an operator moves through its statuses with text updates', () => {
    const { engine } = setUp();
    const opened = engine.openIncident({
      name: 'Slow sends to Gmail',
      body: 'Looking into it.',
      impact: 'major',
      componentIds: [ComponentIds.relay],
    });
    engine.addIncidentUpdate(opened.id, { status: 'identified', body: 'Gmail is deferring.' });
    engine.addIncidentUpdate(opened.id, { status: 'monitoring', body: 'Fixed, watching.' });
    const resolved = engine.addIncidentUpdate(opened.id, { status: 'resolved', body: 'All good.' });
    expect(resolved).toMatchObject({ automatic: false, status: 'resolved', impact: 'major' });
    expect(resolved.updates.map((u) => u.status)).toEqual(['resolved', 'monitoring', 'identified', 'investigating']);
    expect(resolved.monitoringAt).toBeInstanceOf(Date);
    expect(() => engine.addIncidentUpdate('nope', { status: 'resolved', body: 'x' })).toThrow(/no incident/);
    expect(() => engine.openIncident({ name: 'x', body: 'y', componentIds: ['no.such'] })).toThrow(/Unknown components/);
  });

  it('a scheduled maintenance moves by the clock, its components show under_maintenance and open no incident', () => {
    const { engine, check, advance, component, clock } = setUp();
    check(ComponentIds.mailer, 'operational');
    const start = new Date(clock().getTime() + 10_000);
    const m = engine.scheduleMaintenance({
      name: 'Mailer upgrade',
      componentIds: [ComponentIds.mailer],
      scheduledFor: start,
      scheduledUntil: new Date(start.getTime() + 20_000),
    });
    expect(m.status).toBe('scheduled');
    advance(10_000);
    expect(engine.maintenance(m.id)!.status).toBe('in_progress');
    expect(component(ComponentIds.mailer).status).toBe('under_maintenance');
    check(ComponentIds.mailer, 'major_outage', 5); // stopped for the upgrade
    expect(component(ComponentIds.mailer).status).toBe('under_maintenance');
    expect(engine.snapshot().incidents).toHaveLength(0);
    advance(15_000);
    expect(engine.maintenance(m.id)!.status).toBe('verifying');
    check(ComponentIds.mailer, 'operational', 2);
    const done = engine.maintenance(m.id)!;
    expect(done.status).toBe('completed');
    expect(done.updates.map((u) => u.status)).toEqual(['completed', 'verifying', 'in_progress', 'scheduled']);
    expect(component(ComponentIds.mailer).status).toBe('operational');
    expect(engine.snapshot().incidents).toHaveLength(0);
  });

  it('a maintenance whose components stay down completes after the verify period and then an incident opens', () => {
    const { engine, check, advance, component, clock } = setUp();
    check(ComponentIds.mailer, 'operational');
    const m = engine.scheduleMaintenance({
      name: 'Mailer upgrade',
      componentIds: [ComponentIds.mailer],
      scheduledFor: clock(),
      scheduledUntil: new Date(clock().getTime() + 5_000),
    });
    expect(engine.maintenance(m.id)!.status).toBe('in_progress');
    for (let i = 0; i < 70; i++) check(ComponentIds.mailer, 'major_outage');
    advance(1000);
    expect(engine.maintenance(m.id)!.status).toBe('completed');
    expect(component(ComponentIds.mailer).status).toBe('major_outage');
    expect(engine.snapshot().incidents[0]).toMatchObject({ automatic: true, componentIds: [ComponentIds.mailer] });
  });

  it('rejects a maintenance that ends before it starts', () => {
    const { engine, clock } = setUp();
    expect(() =>
      engine.scheduleMaintenance({ name: 'x', componentIds: [ComponentIds.mailer], scheduledFor: clock(), scheduledUntil: clock() }),
    ).toThrow(/end after/);
  });

  it('counts the daily records as time passes', () => {
    const { engine, check, advance } = setUp();
    check(ComponentIds.gateway, 'operational');
    advance(9_000);
    const day = engine.snapshot().days.find((d) => d.componentId === ComponentIds.gateway)!;
    expect(day).toMatchObject({ day: '2026-03-01', worst: 'operational' });
    // The second before the first check was unknown (not observed); the ten after it were.
    expect(day.observedMs).toBe(10_000);
    expect(day.operationalMs).toBe(10_000);
  });

  it('the snapshot file round trip gives another engine the same state, with Dates', async () => {
    const first = setUp();
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

    const second = setUp();
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

  it('pending writes are taken once and can be put back after a failed write', () => {
    const { engine, check } = setUp();
    check(ComponentIds.mailer, 'operational', 2);
    const taken = engine.takePending();
    expect(taken.checks).toHaveLength(2);
    expect(engine.takePending().checks).toHaveLength(0);
    engine.putBack(taken);
    expect(engine.takePending().checks).toHaveLength(2);
  });
});
