import { buildSnapshot, PREVIEW_NOW } from '../../preview/scenarios';
import type { DailyRecord } from './model';
import { dayCells, formatUptime, overallStatus, statusLines, uptimePercent } from './view';

const DAY = 86_400_000;
const record = (
  day: string,
  componentId: string,
  worst: DailyRecord['worst'],
  operationalMs: number,
  observedMs = DAY,
  incidentIds: string[] = [],
): DailyRecord => ({
  day,
  componentId,
  worst,
  observedMs,
  operationalMs,
  incidentIds,
});

describe('the 90-day bar', () => {
  it('has 90 cells ending today, a day without data empty and left out of the uptime', () => {
    const snapshot = buildSnapshot({
      days: [
        record('2026-11-23', 'api.gateway', 'operational', DAY / 2, DAY / 2),
        record('2026-11-22', 'api.gateway', 'partial_outage', DAY - 3_600_000, DAY, ['inc-1']),
      ],
    });
    const line = statusLines(snapshot, 'public').find((l) => l.id === 'api.gateway')!;
    const cells = dayCells(snapshot, line);
    expect(cells).toHaveLength(90);
    expect(cells[89]!.day).toBe('2026-11-23');
    expect(cells[0]!.day).toBe('2026-08-26');
    expect(cells[88]).toMatchObject({ worst: 'partial_outage', incidentIds: ['inc-1'] });
    expect(cells[10]).toMatchObject({ worst: null, observedMs: 0 });
    // (12 h + 23 h) operational of 36 h observed = 97.2222… → 97.22
    expect(uptimePercent(cells)).toBe(97.22);
  });

  it('rounds down, so that a minute down in 90 days never reads 100.00 %', () => {
    const days = Array.from({ length: 90 }, (_, i) =>
      record(new Date(PREVIEW_NOW.getTime() - i * DAY).toISOString().slice(0, 10), 'api.gateway', 'operational', DAY),
    );
    days[5] = { ...days[5]!, worst: 'degraded_performance', operationalMs: DAY - 60_000 };
    const snapshot = buildSnapshot({ days });
    const cells = dayCells(
      snapshot,
      statusLines(snapshot, 'public').find((l) => l.id === 'api.gateway')!,
    );
    expect(uptimePercent(cells)).toBe(99.99);
    expect(formatUptime(uptimePercent(cells))).toBe('99.99 % uptime');
    expect(formatUptime(uptimePercent(cells.map((c) => ({ ...c, observedMs: 0, operationalMs: 0 }))))).toBe('no data');
  });

  it('folds the Infrastructure members: the worst status, the least operational share', () => {
    const snapshot = buildSnapshot({
      days: [
        record('2026-11-22', 'infrastructure.kafka', 'degraded_performance', DAY / 2),
        record('2026-11-22', 'infrastructure.mongodb', 'operational', DAY),
        record('2026-11-22', 'infrastructure.smtp', 'major_outage', DAY * 0.75),
      ],
    });
    const line = statusLines(snapshot, 'public').find((l) => l.id === 'infrastructure')!;
    expect(line.memberIds).toEqual(['infrastructure.kafka', 'infrastructure.mongodb', 'infrastructure.smtp']);
    const cell = dayCells(snapshot, line).find((c) => c.day === '2026-11-22')!;
    expect(cell).toMatchObject({ worst: 'major_outage', observedMs: DAY, operationalMs: DAY / 2 });
  });
});

describe('the overall indicator', () => {
  it.each([
    [{}, 'none', 'All Systems Operational'],
    [{ 'api.gateway': 'degraded_performance' }, 'minor', 'Minor Service Outage'],
    [{ 'api.gateway': 'partial_outage', 'admin.panel': 'degraded_performance' }, 'major', 'Partial System Outage'],
    [{ 'infrastructure.kafka': 'major_outage' }, 'critical', 'Major Service Outage'],
    [{ 'admin.panel': 'under_maintenance' }, 'none', 'Service Under Maintenance'],
    [{ 'tracking.links': 'unknown' }, 'minor', 'Some Systems Not Reporting'],
    [{ 'tracking.links': 'unknown', 'api.gateway': 'partial_outage' }, 'major', 'Partial System Outage'],
  ] as const)('components %j → %s', (statuses, indicator, description) => {
    expect(overallStatus(buildSnapshot({ statuses }))).toMatchObject({ indicator, description });
  });
});

describe('a component nothing is set up to check', () => {
  const unmonitored = () => {
    const snapshot = buildSnapshot({ statuses: { 'tracking.links': 'unknown' } });
    snapshot.components = snapshot.components.map((c) =>
      c.id === 'tracking.links' ? { ...c, monitored: false, detail: 'not configured' } : c,
    );
    return snapshot;
  };

  it('is no outage to the public: the overall status leaves it out', () => {
    expect(overallStatus(unmonitored())).toMatchObject({ indicator: 'none', description: 'All Systems Operational', stale: false });
  });

  it('is not a line of the public page, while operators still see it with the reason', () => {
    expect(statusLines(unmonitored(), 'public').map((l) => l.id)).not.toContain('tracking.links');
    expect(statusLines(unmonitored(), 'operator').find((l) => l.id === 'tracking.links')).toMatchObject({
      status: 'unknown',
      detail: 'not configured',
    });
  });
});
