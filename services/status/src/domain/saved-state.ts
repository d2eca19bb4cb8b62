import type { DampedState } from './damping';
import type { CanarySample, CheckResult, ComponentState, DailyRecord, Incident, Maintenance } from './model';

/** What the persister writes next: taken from the engine, given back when the database refused it. */
export interface PendingChanges {
  checks: CheckResult[];
  incidents: Incident[];
  maintenances: Maintenance[];
  days: DailyRecord[];
}

/** The part of the state the snapshot file keeps (checks go to the database only). */
export interface SavedState {
  savedAt: Date;
  version: number;
  components: (ComponentState & { damping?: DampedState; lastGoodAt?: Date | null })[];
  incidents: Incident[];
  maintenances: Maintenance[];
  days: DailyRecord[];
  canary: CanarySample[];
}
