import type { Maintenance } from './model';
import { dueMaintenanceStatus } from './maintenance';

const maintenance = (status: Maintenance['status'] = 'scheduled'): Maintenance => ({
  id: 'm1',
  name: 'Database upgrade',
  status,
  impact: 'none',
  componentIds: ['api.gateway'],
  scheduledFor: new Date('2026-03-01T10:00:00Z'),
  scheduledUntil: new Date('2026-03-01T11:00:00Z'),
  createdAt: new Date('2026-02-28T10:00:00Z'),
  updatedAt: new Date('2026-02-28T10:00:00Z'),
  updates: [],
});
const context = (iso: string, operational = false) => ({
  now: new Date(iso),
  verifyMs: 10 * 60_000,
  componentsOperationalSince: () => operational,
});

describe('maintenance state machine', () => {
  it('is scheduled before its start, in progress during its window, verifying after it', () => {
    expect(dueMaintenanceStatus(maintenance(), context('2026-03-01T09:59:59Z'))).toBe('scheduled');
    expect(dueMaintenanceStatus(maintenance(), context('2026-03-01T10:00:00Z'))).toBe('in_progress');
    expect(dueMaintenanceStatus(maintenance(), context('2026-03-01T11:00:00Z'))).toBe('verifying');
  });

  it('completes after the verify period, or earlier once its components are seen operational', () => {
    expect(dueMaintenanceStatus(maintenance('verifying'), context('2026-03-01T11:09:59Z'))).toBe('verifying');
    expect(dueMaintenanceStatus(maintenance('verifying'), context('2026-03-01T11:10:00Z'))).toBe('completed');
    expect(dueMaintenanceStatus(maintenance('verifying'), context('2026-03-01T11:00:01Z', true))).toBe('completed');
  });

  it('never moves back: a maintenance completed by hand stays completed', () => {
    expect(dueMaintenanceStatus(maintenance('completed'), context('2026-03-01T10:30:00Z'))).toBe('completed');
  });
});
