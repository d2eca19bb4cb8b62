import { SEVERITY } from './components';
import type {
  ComponentDefinition,
  ComponentGroup,
  ComponentStatus,
  DailyRecord,
  Impact,
  Incident,
  Indicator,
  Maintenance,
  ObservedStatus,
  StatusSnapshot,
} from './model';

/**
 * What every publisher shows, derived from a snapshot once: the lines of the page (the public one
 * folds the Infrastructure group into one line), the overall indicator and the 90-day bars.
 */

export const worstStatus = (statuses: ObservedStatus[]): ObservedStatus =>
  statuses.reduce<ObservedStatus>((worst, status) => (SEVERITY[status] > SEVERITY[worst] ? status : worst), 'operational');

const IMPACT_RANK: Record<Impact, number> = { none: 0, minor: 1, major: 2, critical: 3 };
const worstImpact = (impacts: Impact[]): Impact =>
  impacts.reduce<Impact>((worst, impact) => (IMPACT_RANK[impact] > IMPACT_RANK[worst] ? impact : worst), 'none');

/**
 * Statuspage's component enum has no "unknown": a component whose probe went quiet is published as
 * degraded (we cannot vouch for it), never as operational.
 */
export const publishedStatus = (status: ObservedStatus): ComponentStatus => (status === 'unknown' ? 'degraded_performance' : status);

/** What a component's status says about the page as a whole. */
const STATUS_IMPACT: Record<ObservedStatus, Impact> = {
  operational: 'none',
  under_maintenance: 'none',
  unknown: 'minor',
  degraded_performance: 'minor',
  partial_outage: 'major',
  major_outage: 'critical',
};

export const STATUS_LABELS: Record<ObservedStatus, string> = {
  operational: 'Operational',
  degraded_performance: 'Degraded performance',
  partial_outage: 'Partial outage',
  major_outage: 'Major outage',
  under_maintenance: 'Under maintenance',
  unknown: 'Not reporting',
};

export const GROUP_NAMES: Record<ComponentGroup, string> = {
  api: 'API',
  sending: 'Sending',
  webhooks: 'Webhooks',
  tracking: 'Tracking',
  admin: 'Admin panel',
  infrastructure: 'Infrastructure',
};

export interface OverallStatus {
  indicator: Indicator;
  description: string;
  /** True when nothing is wrong but a maintenance is in progress (the page says so instead of "All Systems Operational"). */
  maintenance: boolean;
  /** Some component stopped reporting. */
  stale: boolean;
}

/**
 * The overall indicator: the worst of what the components' statuses imply (degraded → minor,
 * partial outage → major, major outage → critical, not reporting → minor) and the impacts of the
 * open incidents. A maintenance in progress leaves it at `none` but changes the description, as
 * Statuspage's page does.
 */
export function overallStatus(snapshot: StatusSnapshot): OverallStatus {
  const statuses = snapshot.components.filter((component) => component.monitored !== false).map((component) => component.status);
  const fromComponents = worstImpact(statuses.map((status) => STATUS_IMPACT[status]));
  const fromIncidents = worstImpact(openIncidents(snapshot).map((incident) => incident.impact));
  const indicator = worstImpact([fromComponents, fromIncidents]);
  const maintenance = activeMaintenances(snapshot).length > 0 || statuses.includes('under_maintenance');
  const stale = statuses.includes('unknown');
  const onlyStale = stale && indicator === 'minor' && !statuses.some((s) => SEVERITY[s] > SEVERITY.unknown) && fromIncidents === 'none';
  const description =
    indicator === 'none'
      ? maintenance
        ? 'Service Under Maintenance'
        : 'All Systems Operational'
      : onlyStale
        ? 'Some Systems Not Reporting'
        : { minor: 'Minor Service Outage', major: 'Partial System Outage', critical: 'Major Service Outage' }[indicator];
  return { indicator, description, maintenance, stale };
}

export const openIncidents = (snapshot: StatusSnapshot): Incident[] =>
  snapshot.incidents.filter((incident) => incident.status !== 'resolved' && incident.status !== 'postmortem');

export const activeMaintenances = (snapshot: StatusSnapshot): Maintenance[] =>
  snapshot.maintenances.filter((maintenance) => maintenance.status === 'in_progress' || maintenance.status === 'verifying');

export const upcomingMaintenances = (snapshot: StatusSnapshot): Maintenance[] =>
  snapshot.maintenances.filter((maintenance) => maintenance.status === 'scheduled');

/** One line of the page: a component, or a group folded into one (Infrastructure, publicly). */
export interface StatusLine {
  id: string;
  name: string;
  description: string;
  status: ObservedStatus;
  since: Date;
  position: number;
  group: ComponentGroup;
  /** The components this line stands for (itself, or the folded group's members). */
  memberIds: string[];
  /** Operators only: why (the probe's one-line detail). */
  detail: string;
}

/** The id the folded Infrastructure line (and its badge, and its Statuspage component) goes by. */
export const INFRASTRUCTURE_LINE_ID = 'infrastructure';

/**
 * The page's lines in order. Publicly, the non-public components (Infrastructure) fold into one
 * line per group, as bad as its worst member; the operator view lists each component.
 */
export function statusLines(snapshot: StatusSnapshot, view: 'public' | 'operator'): StatusLine[] {
  const states = new Map(snapshot.components.map((component) => [component.id, component]));
  const lineOf = (definition: ComponentDefinition): StatusLine => {
    const state = states.get(definition.id);
    return {
      id: definition.id,
      name: definition.name,
      description: definition.description,
      status: state?.status ?? 'unknown',
      since: state?.since ?? snapshot.generatedAt,
      position: definition.position,
      group: definition.group,
      memberIds: [definition.id],
      detail: state?.detail ?? 'no check yet',
    };
  };
  const ordered = [...snapshot.definitions].sort((a, b) => a.position - b.position);
  if (view === 'operator') return ordered.map(lineOf);
  const lines: StatusLine[] = [];
  const folded = new Map<ComponentGroup, StatusLine[]>();
  for (const definition of ordered) {
    if (states.get(definition.id)?.monitored === false) continue; // nothing checks it: nothing to tell the public
    if (definition.public) lines.push(lineOf(definition));
    else folded.set(definition.group, [...(folded.get(definition.group) ?? []), lineOf(definition)]);
  }
  for (const [group, members] of folded) {
    const status = worstStatus(members.map((member) => member.status));
    const changed = members.filter((member) => member.status === status).map((member) => member.since.getTime());
    lines.push({
      id: group === 'infrastructure' ? INFRASTRUCTURE_LINE_ID : group,
      name: GROUP_NAMES[group],
      description: `${members.length} internal components: ${members.map((member) => member.name).join(', ')}`,
      status,
      since: new Date(Math.max(...changed)),
      position: Math.min(...members.map((member) => member.position)),
      group,
      memberIds: members.map((member) => member.id),
      detail: '',
    });
  }
  return lines.sort((a, b) => a.position - b.position);
}

/** One cell of a line's 90-day bar. */
export interface DayCell {
  day: string;
  /** `null` when nothing was observed that day (drawn grey, left out of the uptime). */
  worst: ObservedStatus | null;
  observedMs: number;
  operationalMs: number;
  incidentIds: string[];
}

export const HISTORY_DAYS = 90;

const DAY_MS = 86_400_000;
export const utcDay = (at: Date): string => at.toISOString().slice(0, 10);

/**
 * The last 90 UTC days of a line, oldest first, ending with the snapshot's day. A folded line's day
 * is as bad as its worst member, and its operational time is the least of its members' (as a
 * share of the time observed), so one member down is the line down.
 */
export function dayCells(snapshot: StatusSnapshot, line: StatusLine, days = HISTORY_DAYS): DayCell[] {
  const members = new Set(line.memberIds);
  const byDay = new Map<string, DailyRecord[]>();
  for (const record of snapshot.days) {
    if (!members.has(record.componentId)) continue;
    byDay.set(record.day, [...(byDay.get(record.day) ?? []), record]);
  }
  const today = Date.parse(`${utcDay(snapshot.generatedAt)}T00:00:00Z`);
  const cells: DayCell[] = [];
  for (let index = days - 1; index >= 0; index--) {
    const day = utcDay(new Date(today - index * DAY_MS));
    const records = (byDay.get(day) ?? []).filter((record) => record.observedMs > 0);
    if (records.length === 0) {
      cells.push({ day, worst: null, observedMs: 0, operationalMs: 0, incidentIds: [] });
      continue;
    }
    const observedMs = Math.max(...records.map((record) => record.observedMs));
    const share = Math.min(...records.map((record) => record.operationalMs / record.observedMs));
    cells.push({
      day,
      worst: worstStatus(records.map((record) => record.worst)),
      observedMs,
      operationalMs: Math.round(observedMs * share),
      incidentIds: [...new Set(records.flatMap((record) => record.incidentIds))],
    });
  }
  return cells;
}

/**
 * Uptime over the cells, in percent: operational (or maintenance) time over observed time, days
 * with no observation left out; null when nothing was observed. Rounded down to two decimals so
 * that 99.999 % never reads as 100.00 %.
 */
export function uptimePercent(cells: DayCell[]): number | null {
  const observed = cells.reduce((sum, cell) => sum + cell.observedMs, 0);
  if (observed === 0) return null;
  const operational = cells.reduce((sum, cell) => sum + cell.operationalMs, 0);
  return Math.floor((operational / observed) * 10_000) / 100;
}

export const formatUptime = (percent: number | null): string => (percent === null ? 'no data' : `${percent.toFixed(2)} % uptime`);
