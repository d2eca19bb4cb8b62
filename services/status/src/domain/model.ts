/**
 * The status service's state: what the probes saw, the incidents and maintenances, the daily
 * history and the canary's send delays. The engine (checks, damping, incidents, maintenance,
 * persistence) writes it; the publishers (HTML, Statuspage v2 JSON, feeds, badges, subscriptions)
 * only read a snapshot of it, so the page answers from memory whatever else is down.
 *
 * The status and impact names are Statuspage's (API v2), so its JSON is a mapping, not a translation.
 */

export const COMPONENT_STATUSES = ['operational', 'degraded_performance', 'partial_outage', 'major_outage', 'under_maintenance'] as const;
export type ComponentStatus = (typeof COMPONENT_STATUSES)[number];

/** A component whose probe stopped reporting is `unknown` (stale), never operational. */
export type ObservedStatus = ComponentStatus | 'unknown';

export const INCIDENT_STATUSES = ['investigating', 'identified', 'monitoring', 'resolved', 'postmortem'] as const;
export type IncidentStatus = (typeof INCIDENT_STATUSES)[number];

export const MAINTENANCE_STATUSES = ['scheduled', 'in_progress', 'verifying', 'completed'] as const;
export type MaintenanceStatus = (typeof MAINTENANCE_STATUSES)[number];

export const IMPACTS = ['none', 'minor', 'major', 'critical'] as const;
export type Impact = (typeof IMPACTS)[number];

/** The page's overall indicator (Statuspage `status.indicator`). */
export type Indicator = Impact;

export const COMPONENT_GROUPS = ['api', 'sending', 'webhooks', 'tracking', 'admin', 'infrastructure'] as const;
export type ComponentGroup = (typeof COMPONENT_GROUPS)[number];

export interface ComponentDefinition {
  /** Stable id, e.g. `sending.mailer`, `infrastructure.kafka`. */
  id: string;
  name: string;
  group: ComponentGroup;
  description: string;
  /** Infrastructure components are shown to the public as one line (their group); operators see each. */
  public: boolean;
  position: number;
}

export interface ComponentState {
  id: string;
  status: ObservedStatus;
  /** When the (damped) status last changed. */
  since: Date;
  /** When the last check of it arrived; null before the first. */
  lastCheckAt: Date | null;
  /** Why, in one line for operators (e.g. "readyz: kafka not connected"). Never PII or secrets. */
  detail: string;
  /**
   * False when nothing is set up to check it (the canary without its settings): operators see it
   * as not reporting, with the reason; the public page and the overall status leave it out, since
   * a check nobody configured says nothing about the service.
   */
  monitored?: boolean;
}

/** One probe's verdict; every one is kept for the history (bounded to the 90 days). */
export interface CheckResult {
  componentId: string;
  at: Date;
  /** What this check alone suggests; damping decides whether the component changes. */
  status: ComponentStatus;
  detail: string;
  latencyMs?: number;
}

export interface AffectedComponent {
  componentId: string;
  oldStatus: ObservedStatus;
  newStatus: ObservedStatus;
}

export interface IncidentUpdate {
  id: string;
  status: IncidentStatus | MaintenanceStatus;
  body: string;
  at: Date;
  affected: AffectedComponent[];
}

export interface Incident {
  id: string;
  name: string;
  status: IncidentStatus;
  impact: Impact;
  /** Opened by the engine when a component left operational (and resolved by it on recovery). */
  automatic: boolean;
  componentIds: string[];
  createdAt: Date;
  updatedAt: Date;
  startedAt: Date;
  monitoringAt: Date | null;
  resolvedAt: Date | null;
  /** Newest first, as Statuspage lists them. */
  updates: IncidentUpdate[];
}

export interface Maintenance {
  id: string;
  name: string;
  status: MaintenanceStatus;
  impact: Impact;
  componentIds: string[];
  scheduledFor: Date;
  scheduledUntil: Date;
  createdAt: Date;
  updatedAt: Date;
  /** Newest first. */
  updates: IncidentUpdate[];
}

/** One component's UTC day: the 90-day bar's cell. */
export interface DailyRecord {
  day: string; // YYYY-MM-DD (UTC)
  componentId: string;
  /** The worst status seen that day (colours the bar). */
  worst: ObservedStatus;
  /** Milliseconds observed and milliseconds operational (or under maintenance), for the uptime %. */
  observedMs: number;
  operationalMs: number;
  incidentIds: string[];
}

/** One canary send: acceptance → `sent`, or null when no `sent` arrived within the bound. */
export interface CanarySample {
  at: Date;
  delayMs: number | null;
}

export interface PageInfo {
  id: string;
  name: string;
  url: string;
}

/** Everything a publisher needs, read at once. Treat as immutable. */
export interface StatusSnapshot {
  page: PageInfo;
  generatedAt: Date;
  /** Changes whenever anything published changes: the ETag's source. */
  version: number;
  definitions: ComponentDefinition[];
  components: ComponentState[];
  incidents: Incident[];
  maintenances: Maintenance[];
  days: DailyRecord[];
  canary: CanarySample[];
}

/** What the engine tells subscribers (webhook and email) about. */
export type StatusEvent =
  | { kind: 'incident'; incident: Incident; update: IncidentUpdate }
  | { kind: 'maintenance'; maintenance: Maintenance; update: IncidentUpdate }
  | { kind: 'component'; component: ComponentState; previous: ObservedStatus };

/** The engine as the publishers see it. */
export interface StatusSource {
  snapshot(): StatusSnapshot;
  /** Returns a function that removes the listener. */
  onEvent(listener: (event: StatusEvent) => void): () => void;
}
