import type { DailyRecord } from './model';
import { accumulate, pruneDays, uptimePercent } from './daily';

const at = (iso: string) => new Date(iso);

describe('daily records', () => {
  it('counts operational time as observed and up, an outage as observed only', () => {
    const records = new Map<string, DailyRecord>();
    accumulate(records, 'sending.mailer', 'operational', at('2026-03-01T10:00:00Z'), at('2026-03-01T11:00:00Z'));
    accumulate(records, 'sending.mailer', 'major_outage', at('2026-03-01T11:00:00Z'), at('2026-03-01T11:15:00Z'));
    const [day] = [...records.values()];
    expect(day).toMatchObject({ day: '2026-03-01', observedMs: 75 * 60_000, operationalMs: 60 * 60_000, worst: 'major_outage' });
    expect(uptimePercent(records.values())).toBeCloseTo(80, 5);
  });

  it('splits time at UTC midnight into two days', () => {
    const records = new Map<string, DailyRecord>();
    accumulate(records, 'api.gateway', 'operational', at('2026-03-01T23:30:00Z'), at('2026-03-02T00:45:00Z'));
    const byDay = Object.fromEntries([...records.values()].map((r) => [r.day, r.observedMs]));
    expect(byDay).toEqual({ '2026-03-01': 30 * 60_000, '2026-03-02': 45 * 60_000 });
  });

  it('leaves unknown time out of the uptime but shows it in the bar', () => {
    const records = new Map<string, DailyRecord>();
    accumulate(records, 'api.gateway', 'operational', at('2026-03-01T00:00:00Z'), at('2026-03-01T01:00:00Z'));
    accumulate(records, 'api.gateway', 'unknown', at('2026-03-01T01:00:00Z'), at('2026-03-01T05:00:00Z'));
    expect(uptimePercent(records.values())).toBe(100);
    expect([...records.values()][0]!.worst).toBe('unknown');
  });

  it('counts maintenance as up', () => {
    const records = new Map<string, DailyRecord>();
    accumulate(records, 'api.gateway', 'under_maintenance', at('2026-03-01T00:00:00Z'), at('2026-03-01T01:00:00Z'));
    expect(uptimePercent(records.values())).toBe(100);
  });

  it('has no uptime when nothing was observed', () => {
    expect(uptimePercent([])).toBeNull();
  });

  it('keeps 90 days', () => {
    const records = new Map<string, DailyRecord>();
    accumulate(records, 'x', 'operational', at('2026-01-01T00:00:00Z'), at('2026-01-01T01:00:00Z'));
    accumulate(records, 'x', 'operational', at('2026-03-01T00:00:00Z'), at('2026-03-01T01:00:00Z'));
    pruneDays(records, at('2026-04-05T12:00:00Z'));
    expect([...records.values()].map((r) => r.day)).toEqual(['2026-03-01']);
  });
});
