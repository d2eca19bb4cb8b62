import { ComponentIds } from './components';
import { engineOnClock } from '../../test/test-engine';

describe('status engine', () => {
  it('when the mailer fails three checks in a row, Sending shows it down and an automatic incident opens', () => {
    const { engine, check, component } = engineOnClock();
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
    const { engine, check } = engineOnClock();
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
    const { engine, check, advance } = engineOnClock();
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
    const { engine, check, events } = engineOnClock();
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
    const { engine, check } = engineOnClock();
    check(ComponentIds.dispatcher, 'operational');
    check(ComponentIds.dispatcher, 'degraded_performance', 3);
    expect(engine.snapshot().incidents[0]!.impact).toBe('minor');
  });

  it('when a probe stops reporting, its component becomes unknown, never stays operational', () => {
    const { check, advance, component } = engineOnClock();
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
    const { engine } = engineOnClock();
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
    const { engine, check, advance, component, clock } = engineOnClock();
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
    const { engine, check, advance, component, clock } = engineOnClock();
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
    const { engine, clock } = engineOnClock();
    expect(() =>
      engine.scheduleMaintenance({ name: 'x', componentIds: [ComponentIds.mailer], scheduledFor: clock(), scheduledUntil: clock() }),
    ).toThrow(/end after/);
  });

  it('counts the daily records as time passes', () => {
    const { engine, check, advance } = engineOnClock();
    check(ComponentIds.gateway, 'operational');
    advance(9_000);
    const day = engine.snapshot().days.find((d) => d.componentId === ComponentIds.gateway)!;
    expect(day).toMatchObject({ day: '2026-03-01', worst: 'operational' });
    // The second before the first check was unknown (not observed); the ten after it were.
    expect(day.observedMs).toBe(10_000);
    expect(day.operationalMs).toBe(10_000);
  });

  it('pending writes are taken once and can be put back after a failed write', () => {
    const { engine, check } = engineOnClock();
    check(ComponentIds.mailer, 'operational', 2);
    const taken = engine.takePending();
    expect(taken.checks).toHaveLength(2);
    expect(engine.takePending().checks).toHaveLength(0);
    engine.putBack(taken);
    expect(engine.takePending().checks).toHaveLength(2);
  });
});
