import { randomUUID } from 'node:crypto';
import { NotFoundError, ValidationError } from '@postbus/errors';
import { clone } from './clone';
import { impactOf, isBad, SEVERITY, worstImpact } from './components';
import { accumulate, dailyKey, dayOf, pruneDays, recordFor, HISTORY_DAYS } from './daily';
import { applyCheck, initialDamping, type DampedState, type DampingRule } from './damping';
import { dueMaintenanceStatus, isUnderway } from './maintenance';
import type {
  AffectedComponent,
  CanarySample,
  CheckResult,
  ComponentDefinition,
  ComponentState,
  DailyRecord,
  Impact,
  Incident,
  IncidentStatus,
  IncidentUpdate,
  Maintenance,
  MaintenanceStatus,
  ObservedStatus,
  PageInfo,
  StatusEvent,
  StatusSnapshot,
  StatusSource,
} from './model';
import type { PendingChanges, SavedState } from './saved-state';

export type Clock = () => Date;

export interface EngineOptions {
  page: PageInfo;
  definitions: ComponentDefinition[];
  damping: DampingRule;
  /** How long without a check before a component is unknown (stale); per component, its probe's pace differs. */
  staleAfterMs: (componentId: string) => number;
  maintenanceVerifyMs: number;
  clock?: Clock;
}

export interface OpenIncidentInput {
  name: string;
  body: string;
  status?: IncidentStatus;
  impact?: Impact;
  componentIds?: string[];
}

export interface IncidentUpdateInput {
  status: IncidentStatus;
  body: string;
  impact?: Impact;
}

export interface ScheduleMaintenanceInput {
  name: string;
  body?: string;
  componentIds: string[];
  scheduledFor: Date;
  scheduledUntil: Date;
  impact?: Impact;
}

export interface MaintenanceUpdateInput {
  body: string;
  status?: MaintenanceStatus;
}

interface Tracked {
  definition: ComponentDefinition;
  damping: DampedState;
  /** What the page shows (the damped status, or under_maintenance). */
  state: ComponentState;
  /** The last check that found it operational: maintenance verification reads it. */
  lastGoodAt: Date | null;
  /** Time up to which this component's days are counted. */
  countedUntil: Date;
  recent: CheckResult[];
}

const RECENT_CHECKS = 50;
/**
 * A component failing within this long of an open automatic incident's start joins it (one cause,
 * one incident: the mailer down and the send delay with it); later failures open their own.
 */
const INCIDENT_JOIN_WINDOW_MS = 5 * 60_000;
const CANARY_KEPT_MS = 86_400_000;
const MAX_PENDING_CHECKS = 200_000;
const STATUS_WORDS: Record<ObservedStatus, string> = {
  operational: 'operational',
  degraded_performance: 'degraded',
  partial_outage: 'partially down',
  major_outage: 'down',
  under_maintenance: 'under maintenance',
  unknown: 'not reporting',
};

/**
 * The status service's state and rules: checks come in, damping decides component statuses,
 * incidents open and resolve themselves, maintenances move with the clock, the daily history
 * accumulates. Everything is in memory; the persister and the snapshot file copy it out.
 */
export class StatusEngine implements StatusSource {
  private readonly clock: Clock;
  private readonly components = new Map<string, Tracked>();
  private readonly incidents = new Map<string, Incident>();
  private readonly maintenances = new Map<string, Maintenance>();
  private readonly days = new Map<string, DailyRecord>();
  private canary: CanarySample[] = [];
  private readonly listeners = new Set<(event: StatusEvent) => void>();
  private version = 1;
  private cached: StatusSnapshot | undefined;
  private lastDayBump = '';
  private pending: PendingChanges = { checks: [], incidents: [], maintenances: [], days: [] };
  private readonly dirtyIncidents = new Set<string>();
  private readonly dirtyMaintenances = new Set<string>();
  private readonly dirtyDays = new Set<string>();
  /** Called (debounced by its owner) whenever something published changed. */
  onChange: () => void = () => undefined;

  constructor(private readonly options: EngineOptions) {
    this.clock = options.clock ?? (() => new Date());
    const now = this.clock();
    for (const definition of options.definitions) {
      this.components.set(definition.id, {
        definition,
        damping: initialDamping(),
        state: { id: definition.id, status: 'unknown', since: now, lastCheckAt: null, detail: 'no check yet' },
        lastGoodAt: null,
        countedUntil: now,
        recent: [],
      });
    }
  }

  // ── StatusSource ────────────────────────────────────────────────────────────────────────────

  snapshot(): StatusSnapshot {
    if (this.cached?.version === this.version) return this.cached;
    const byNewest = <T extends { createdAt: Date }>(a: T, b: T) => b.createdAt.getTime() - a.createdAt.getTime();
    this.cached = clone({
      page: this.options.page,
      generatedAt: this.clock(),
      version: this.version,
      definitions: this.options.definitions,
      components: [...this.components.values()].map((c) => c.state),
      incidents: [...this.incidents.values()].sort(byNewest),
      maintenances: [...this.maintenances.values()].sort(byNewest),
      days: [...this.days.values()].sort((a, b) => (a.day === b.day ? a.componentId.localeCompare(b.componentId) : a.day < b.day ? -1 : 1)),
      canary: [...this.canary],
    });
    return this.cached;
  }

  onEvent(listener: (event: StatusEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  // ── Checks ──────────────────────────────────────────────────────────────────────────────────

  /** One probe's verdict: kept for the history, then damped into the component's status. */
  record(check: CheckResult): void {
    const tracked = this.components.get(check.componentId);
    if (!tracked) return;
    this.pushPendingCheck(check);
    tracked.recent.unshift(check);
    if (tracked.recent.length > RECENT_CHECKS) tracked.recent.length = RECENT_CHECKS;
    tracked.state = { ...tracked.state, lastCheckAt: check.at };
    if (check.status === 'operational') tracked.lastGoodAt = check.at;
    const before = tracked.damping.status;
    tracked.damping = applyCheck(tracked.damping, check.status, this.options.damping);
    // The detail follows the latest check while it agrees with the shown status, so it says why.
    const detail = tracked.damping.status === check.status ? check.detail : tracked.state.detail;
    if (before !== tracked.damping.status || detail !== tracked.state.detail) this.publishComponent(tracked, detail);
  }

  /** A component nobody can check now (e.g. the canary is not configured): unknown, with the reason. */
  markUnknown(componentId: string, detail: string): void {
    const tracked = this.components.get(componentId);
    if (!tracked) return;
    tracked.damping = initialDamping('unknown');
    this.publishComponent(tracked, detail);
  }

  /** A component no probe is configured for (see ComponentState.monitored). */
  markNotMonitored(componentId: string, detail: string): void {
    const tracked = this.components.get(componentId);
    if (!tracked) return;
    tracked.damping = initialDamping('unknown');
    tracked.state = { ...tracked.state, monitored: false };
    this.publishComponent(tracked, detail);
    this.changed();
  }

  recordCanary(sample: CanarySample): void {
    const cutoff = this.clock().getTime() - CANARY_KEPT_MS;
    this.canary = [...this.canary.filter((s) => s.at.getTime() >= cutoff), sample];
    this.changed();
  }

  /** The latest checks of a component, newest first (operators' view). */
  recentChecks(componentId: string): CheckResult[] {
    return [...(this.components.get(componentId)?.recent ?? [])];
  }

  /**
   * Moves what depends on time alone: a component whose probe went quiet becomes unknown,
   * maintenances start, verify and complete, and the daily records count the time passed.
   */
  tick(): void {
    const now = this.clock();
    for (const tracked of this.components.values()) {
      const last = tracked.state.lastCheckAt;
      if (
        last &&
        tracked.damping.status !== 'unknown' &&
        now.getTime() - last.getTime() > this.options.staleAfterMs(tracked.definition.id)
      ) {
        tracked.damping = initialDamping('unknown');
        const seconds = Math.round((now.getTime() - last.getTime()) / 1000);
        this.publishComponent(tracked, `no check for ${seconds} s: its probe stopped reporting`);
      }
    }
    for (const maintenance of this.maintenances.values()) {
      const due = dueMaintenanceStatus(maintenance, {
        now,
        verifyMs: this.options.maintenanceVerifyMs,
        componentsOperationalSince: (ids, since) =>
          ids.every((id) => {
            const tracked = this.components.get(id);
            return tracked?.damping.status === 'operational' && tracked.lastGoodAt !== null && tracked.lastGoodAt > since;
          }),
      });
      if (due !== maintenance.status) this.moveMaintenance(maintenance, due, automaticMaintenanceText(due), now);
    }
    for (const tracked of this.components.values()) this.count(tracked, now);
    const minute = now.toISOString().slice(0, 16);
    if (minute !== this.lastDayBump) {
      this.lastDayBump = minute;
      pruneDays(this.days, now);
      this.pruneHistory(now);
      this.changed();
    }
  }

  // ── Incidents ───────────────────────────────────────────────────────────────────────────────

  openIncident(input: OpenIncidentInput): Incident {
    const now = this.clock();
    const componentIds = input.componentIds ?? [];
    this.requireComponents(componentIds);
    const status = input.status ?? 'investigating';
    const incident: Incident = {
      id: randomUUID(),
      name: input.name,
      status,
      impact: input.impact ?? 'minor',
      automatic: false,
      componentIds,
      createdAt: now,
      updatedAt: now,
      startedAt: now,
      monitoringAt: status === 'monitoring' ? now : null,
      resolvedAt: status === 'resolved' ? now : null,
      updates: [],
    };
    this.incidents.set(incident.id, incident);
    this.updateIncident(incident, { status, body: input.body, affected: componentIds.map((id) => this.unchanged(id)) }, now);
    return clone(incident);
  }

  addIncidentUpdate(id: string, input: IncidentUpdateInput): Incident {
    const incident = this.incidents.get(id);
    if (!incident) throw new NotFoundError('There is no incident with this id.');
    if (input.impact) incident.impact = input.impact;
    this.updateIncident(incident, { status: input.status, body: input.body, affected: [] }, this.clock());
    return clone(incident);
  }

  incident(id: string): Incident | undefined {
    const incident = this.incidents.get(id);
    return incident && clone(incident);
  }

  // ── Maintenances ────────────────────────────────────────────────────────────────────────────

  scheduleMaintenance(input: ScheduleMaintenanceInput): Maintenance {
    this.requireComponents(input.componentIds);
    if (input.scheduledUntil <= input.scheduledFor)
      throw new ValidationError('The maintenance must end after it starts.', [
        { pointer: '/scheduled_until', message: 'must be after scheduled_for' },
      ]);
    const now = this.clock();
    const maintenance: Maintenance = {
      id: randomUUID(),
      name: input.name,
      status: 'scheduled',
      impact: input.impact ?? 'none',
      componentIds: input.componentIds,
      scheduledFor: input.scheduledFor,
      scheduledUntil: input.scheduledUntil,
      createdAt: now,
      updatedAt: now,
      updates: [],
    };
    this.maintenances.set(maintenance.id, maintenance);
    this.moveMaintenance(maintenance, 'scheduled', input.body ?? 'Maintenance scheduled.', now, true);
    this.tick(); // one scheduled in the past starts at once
    return clone(this.maintenances.get(maintenance.id)!);
  }

  addMaintenanceUpdate(id: string, input: MaintenanceUpdateInput): Maintenance {
    const maintenance = this.maintenances.get(id);
    if (!maintenance) throw new NotFoundError('There is no maintenance with this id.');
    this.moveMaintenance(maintenance, input.status ?? maintenance.status, input.body, this.clock(), true);
    return clone(maintenance);
  }

  maintenance(id: string): Maintenance | undefined {
    const maintenance = this.maintenances.get(id);
    return maintenance && clone(maintenance);
  }

  // ── Persistence ─────────────────────────────────────────────────────────────────────────────

  /** What the snapshot file keeps. */
  saved(): SavedState {
    const snapshot = this.snapshot();
    return {
      savedAt: this.clock(),
      version: this.version,
      components: [...this.components.values()].map((c) => ({ ...c.state, damping: c.damping, lastGoodAt: c.lastGoodAt })),
      incidents: snapshot.incidents,
      maintenances: snapshot.maintenances,
      days: [...this.days.values()],
      canary: snapshot.canary,
    };
  }

  /**
   * Takes state from the snapshot file or the database: incidents and maintenances by their
   * latest update, days by the most observed time, component statuses only from the file.
   * Nothing restored is written back unless it was newer than what the engine had.
   */
  restore(state: Partial<SavedState>): void {
    for (const saved of state.components ?? []) {
      const tracked = this.components.get(saved.id);
      if (!tracked || tracked.state.lastCheckAt) continue; // live checks beat a saved state
      tracked.state = { id: saved.id, status: saved.status, since: saved.since, lastCheckAt: saved.lastCheckAt, detail: saved.detail };
      tracked.damping = saved.damping ?? initialDamping(saved.status === 'under_maintenance' ? 'operational' : saved.status);
      tracked.lastGoodAt = saved.lastGoodAt ?? null;
    }
    for (const incident of state.incidents ?? []) {
      const mine = this.incidents.get(incident.id);
      if (!mine || mine.updatedAt < incident.updatedAt) this.incidents.set(incident.id, incident);
    }
    for (const maintenance of state.maintenances ?? []) {
      const mine = this.maintenances.get(maintenance.id);
      if (!mine || mine.updatedAt < maintenance.updatedAt) this.maintenances.set(maintenance.id, maintenance);
    }
    for (const day of state.days ?? []) {
      const key = dailyKey(day.componentId, day.day);
      const mine = this.days.get(key);
      if (!mine || mine.observedMs < day.observedMs) this.days.set(key, day);
    }
    if (state.canary) {
      const known = new Set(this.canary.map((s) => s.at.getTime()));
      this.canary = [...this.canary, ...state.canary.filter((s) => !known.has(s.at.getTime()))].sort(
        (a, b) => a.at.getTime() - b.at.getTime(),
      );
    }
    if (state.version && state.version > this.version) this.version = state.version;
    this.changed();
  }

  /**
   * Everything not yet written to the database; the caller gives it back with `putBack` if the
   * write failed. The daily records change on every tick, so the caller may leave them for a later
   * write (each is an update, and updates scan on the local server).
   */
  takePending({ days = true }: { days?: boolean } = {}): PendingChanges {
    const taken: PendingChanges = {
      checks: this.pending.checks,
      incidents: [...this.dirtyIncidents].flatMap((id) => this.incidents.get(id) ?? []).map((i) => clone(i)),
      maintenances: [...this.dirtyMaintenances].flatMap((id) => this.maintenances.get(id) ?? []).map((m) => clone(m)),
      days: days ? [...this.dirtyDays].flatMap((key) => this.days.get(key) ?? []).map((d) => clone(d)) : [],
    };
    this.pending = { checks: [], incidents: [], maintenances: [], days: [] };
    this.dirtyIncidents.clear();
    this.dirtyMaintenances.clear();
    if (days) this.dirtyDays.clear();
    return taken;
  }

  putBack(changes: Partial<PendingChanges>): void {
    for (const check of changes.checks ?? []) this.pushPendingCheck(check);
    for (const incident of changes.incidents ?? []) this.dirtyIncidents.add(incident.id);
    for (const maintenance of changes.maintenances ?? []) this.dirtyMaintenances.add(maintenance.id);
    for (const day of changes.days ?? []) this.dirtyDays.add(dailyKey(day.componentId, day.day));
  }

  pendingCount(): number {
    return this.pending.checks.length + this.dirtyIncidents.size + this.dirtyMaintenances.size + this.dirtyDays.size;
  }

  // ── Internals ───────────────────────────────────────────────────────────────────────────────

  private pushPendingCheck(check: CheckResult): void {
    this.pending.checks.push(check);
    // A database down for days must not exhaust the memory: the oldest checks go first.
    if (this.pending.checks.length > MAX_PENDING_CHECKS) this.pending.checks.splice(0, this.pending.checks.length - MAX_PENDING_CHECKS);
  }

  private requireComponents(ids: string[]): void {
    const unknown = ids.filter((id) => !this.components.has(id));
    if (unknown.length > 0)
      throw new ValidationError(
        `Unknown components: ${unknown.join(', ')}.`,
        unknown.map((id) => ({ pointer: '/component_ids', message: `${id} is not a component` })),
      );
  }

  private unchanged(id: string): AffectedComponent {
    const status = this.components.get(id)?.state.status ?? 'unknown';
    return { componentId: id, oldStatus: status, newStatus: status };
  }

  private underMaintenance(componentId: string): boolean {
    for (const m of this.maintenances.values()) if (isUnderway(m.status) && m.componentIds.includes(componentId)) return true;
    return false;
  }

  private count(tracked: Tracked, now: Date): void {
    if (now <= tracked.countedUntil) return;
    for (const record of accumulate(this.days, tracked.definition.id, tracked.state.status, tracked.countedUntil, now))
      this.dirtyDays.add(dailyKey(record.componentId, record.day));
    tracked.countedUntil = now;
  }

  /** Sets what the page shows for a component (its damped status, or under_maintenance) and acts on a change. */
  private publishComponent(tracked: Tracked, detail: string): void {
    const now = this.clock();
    const previous = tracked.state.status;
    const status: ObservedStatus = this.underMaintenance(tracked.definition.id) ? 'under_maintenance' : tracked.damping.status;
    if (status === previous && detail === tracked.state.detail) return;
    this.count(tracked, now);
    tracked.state = { ...tracked.state, status, detail, since: status === previous ? tracked.state.since : now };
    if (status !== previous) {
      const record = recordFor(this.days, tracked.definition.id, dayOf(now));
      record.worst = SEVERITY[status] > SEVERITY[record.worst] ? status : record.worst;
      this.dirtyDays.add(dailyKey(record.componentId, record.day));
      this.emit({ kind: 'component', component: clone(tracked.state), previous });
      this.followWithIncident(tracked, previous, status, now);
    }
    this.changed();
  }

  /** Opens, extends or resolves the automatic incident for a component that changed. */
  private followWithIncident(tracked: Tracked, previous: ObservedStatus, status: ObservedStatus, now: Date): void {
    const id = tracked.definition.id;
    const name = tracked.definition.name;
    const open = [...this.incidents.values()].filter((i) => i.automatic && i.status !== 'resolved' && i.status !== 'postmortem');
    const affected: AffectedComponent[] = [{ componentId: id, oldStatus: previous, newStatus: status }];
    if (status === 'operational') {
      for (const incident of open.filter((i) => i.componentIds.includes(id))) {
        const allBack = incident.componentIds.every((c) => this.components.get(c)?.state.status === 'operational');
        if (allBack)
          this.updateIncident(
            incident,
            { status: 'resolved', body: `${name} is operational again. All affected components have recovered.`, affected },
            now,
          );
        else this.updateIncident(incident, { status: incident.status, body: `${name} is operational again.`, affected }, now);
      }
      return;
    }
    if (status === 'unknown' || status === 'under_maintenance' || !isBad(status)) return;
    const impact = impactOf(status);
    const current =
      open.find((i) => i.componentIds.includes(id)) ?? open.find((i) => now.getTime() - i.startedAt.getTime() <= INCIDENT_JOIN_WINDOW_MS);
    if (current) {
      const known = current.componentIds.includes(id);
      if (!known) current.componentIds = [...current.componentIds, id];
      current.impact = worstImpact(current.impact, impact);
      this.noteIncidentOnDay(current.id, id, now);
      this.updateIncident(
        current,
        {
          status: current.status,
          body: known ? `${name} is now ${STATUS_WORDS[status]}.` : `${name} is ${STATUS_WORDS[status]} too.`,
          affected,
        },
        now,
      );
      return;
    }
    const incident: Incident = {
      id: randomUUID(),
      name: `${name} ${STATUS_WORDS[status]}`,
      status: 'investigating',
      impact,
      automatic: true,
      componentIds: [id],
      createdAt: now,
      updatedAt: now,
      startedAt: now,
      monitoringAt: null,
      resolvedAt: null,
      updates: [],
    };
    this.incidents.set(incident.id, incident);
    this.noteIncidentOnDay(incident.id, id, now);
    this.updateIncident(
      incident,
      { status: 'investigating', body: `${name} is ${STATUS_WORDS[status]}: ${tracked.state.detail}. We are looking into it.`, affected },
      now,
    );
  }

  private noteIncidentOnDay(incidentId: string, componentId: string, now: Date): void {
    const record = recordFor(this.days, componentId, dayOf(now));
    if (!record.incidentIds.includes(incidentId)) record.incidentIds.push(incidentId);
    this.dirtyDays.add(dailyKey(componentId, record.day));
  }

  private updateIncident(
    incident: Incident,
    change: { status: IncidentStatus; body: string; affected: AffectedComponent[] },
    now: Date,
  ): void {
    const update: IncidentUpdate = { id: randomUUID(), status: change.status, body: change.body, at: now, affected: change.affected };
    incident.status = change.status;
    incident.updatedAt = now;
    if (change.status === 'monitoring' && !incident.monitoringAt) incident.monitoringAt = now;
    if (change.status === 'resolved') incident.resolvedAt = now;
    else if (change.status !== 'postmortem') incident.resolvedAt = null;
    incident.updates = [update, ...incident.updates];
    for (const componentId of incident.componentIds) this.noteIncidentOnDay(incident.id, componentId, now);
    this.dirtyIncidents.add(incident.id);
    this.emit({ kind: 'incident', incident: clone(incident), update: clone(update) });
    this.changed();
  }

  private moveMaintenance(maintenance: Maintenance, status: MaintenanceStatus, body: string, now: Date, always = false): void {
    if (!always && status === maintenance.status) return;
    const update: IncidentUpdate = { id: randomUUID(), status, body, at: now, affected: [] };
    maintenance.status = status;
    maintenance.updatedAt = now;
    maintenance.updates = [update, ...maintenance.updates];
    this.dirtyMaintenances.add(maintenance.id);
    // Its components show (or stop showing) under_maintenance.
    for (const id of maintenance.componentIds) {
      const tracked = this.components.get(id);
      if (!tracked) continue;
      const before = tracked.state.status;
      this.publishComponent(tracked, tracked.state.detail);
      update.affected.push({ componentId: id, oldStatus: before, newStatus: tracked.state.status });
    }
    this.emit({ kind: 'maintenance', maintenance: clone(maintenance), update: clone(update) });
    this.changed();
  }

  /** Resolved incidents and completed maintenances older than the history are forgotten. */
  private pruneHistory(now: Date): void {
    const cutoff = now.getTime() - HISTORY_DAYS * 86_400_000;
    for (const [id, incident] of this.incidents)
      if (incident.resolvedAt && incident.resolvedAt.getTime() < cutoff) this.incidents.delete(id);
    for (const [id, maintenance] of this.maintenances)
      if (maintenance.status === 'completed' && maintenance.updatedAt.getTime() < cutoff) this.maintenances.delete(id);
  }

  private emit(event: StatusEvent): void {
    for (const listener of this.listeners) {
      try {
        listener(event);
      } catch {
        // A publisher's failure is its own; the engine goes on.
      }
    }
  }

  private changed(): void {
    this.version++;
    this.onChange();
  }
}

function automaticMaintenanceText(status: MaintenanceStatus): string {
  switch (status) {
    case 'scheduled':
      return 'Maintenance scheduled.';
    case 'in_progress':
      return 'The scheduled maintenance is in progress.';
    case 'verifying':
      return 'The maintenance work is done; we are verifying that everything works.';
    case 'completed':
      return 'The scheduled maintenance has been completed.';
  }
}
