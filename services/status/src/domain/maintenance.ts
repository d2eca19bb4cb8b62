import type { Maintenance, MaintenanceStatus } from './model';

export interface MaintenanceContext {
  now: Date;
  /** How long a maintenance verifies after its window at most. */
  verifyMs: number;
  /** True when every component of the maintenance was checked operational after `since`. */
  componentsOperationalSince(componentIds: string[], since: Date): boolean;
}

/**
 * Where a maintenance should be now: in progress from its start, verifying from its end, and
 * completed when its components were seen operational after the window, or the verify period is
 * over. Completed stays completed; a status set by hand further along is kept.
 */
export function dueMaintenanceStatus(maintenance: Maintenance, context: MaintenanceContext): MaintenanceStatus {
  const { now } = context;
  const order: MaintenanceStatus[] = ['scheduled', 'in_progress', 'verifying', 'completed'];
  let due: MaintenanceStatus = 'scheduled';
  if (now >= maintenance.scheduledFor) due = 'in_progress';
  if (now >= maintenance.scheduledUntil) due = 'verifying';
  if (
    due === 'verifying' &&
    (now.getTime() >= maintenance.scheduledUntil.getTime() + context.verifyMs ||
      context.componentsOperationalSince(maintenance.componentIds, maintenance.scheduledUntil))
  )
    due = 'completed';
  return order.indexOf(due) > order.indexOf(maintenance.status) ? due : maintenance.status;
}

/** A maintenance whose components show under_maintenance. */
export const isUnderway = (status: MaintenanceStatus): boolean => status === 'in_progress' || status === 'verifying';
