import type { AffectedComponent, ComponentStatus, Incident, IncidentUpdate, Maintenance, StatusSnapshot } from './model';
import {
  activeMaintenances,
  GROUP_NAMES,
  openIncidents,
  overallStatus,
  publishedStatus,
  statusLines,
  upcomingMaintenances,
  type StatusLine,
} from './view';

/**
 * The snapshot as Statuspage's public API v2 shows a page (field names, enums and nesting as
 * theirs), so that existing Statuspage clients, widgets and aggregators read us unchanged. Only the
 * public view is published: the Infrastructure group is one component.
 */

export interface StatuspagePage {
  id: string;
  name: string;
  url: string;
  time_zone: string;
  updated_at: string;
}

export interface StatuspageComponent {
  id: string;
  name: string;
  status: ComponentStatus;
  created_at: string;
  updated_at: string;
  position: number;
  description: string | null;
  showcase: boolean;
  start_date: string | null;
  group_id: string | null;
  page_id: string;
  group: boolean;
  only_show_if_degraded: boolean;
  /** Groups only: their members' ids. */
  components?: string[];
}

export interface StatuspageAffectedComponent {
  code: string;
  name: string;
  old_status: ComponentStatus;
  new_status: ComponentStatus;
}

export interface StatuspageIncidentUpdate {
  id: string;
  status: string;
  body: string;
  incident_id: string;
  created_at: string;
  updated_at: string;
  display_at: string;
  affected_components: StatuspageAffectedComponent[];
  deliver_notifications: boolean;
  custom_tweet: string | null;
  tweet_id: string | null;
}

export interface StatuspageIncident {
  id: string;
  name: string;
  status: string;
  created_at: string;
  updated_at: string;
  monitoring_at: string | null;
  resolved_at: string | null;
  impact: string;
  shortlink: string;
  started_at: string;
  page_id: string;
  incident_updates: StatuspageIncidentUpdate[];
  components: StatuspageComponent[];
}

export interface StatuspageMaintenance extends StatuspageIncident {
  scheduled_for: string;
  scheduled_until: string;
}

const iso = (at: Date): string => at.toISOString();
const isoOrNull = (at: Date | null): string | null => (at ? at.toISOString() : null);

/** Publishes one snapshot; build it once per request. */
export class StatuspageView {
  private readonly lines: StatusLine[];
  /** component id (public or folded) → the public line that shows it. */
  private readonly lineOf = new Map<string, StatusLine>();
  private readonly firstSeen = new Map<string, Date>();

  constructor(
    private readonly snapshot: StatusSnapshot,
    private readonly baseUrl: string,
  ) {
    this.lines = statusLines(snapshot, 'public');
    for (const line of this.lines) for (const member of line.memberIds) this.lineOf.set(member, line);
    for (const record of snapshot.days) {
      const line = this.lineOf.get(record.componentId);
      if (!line) continue;
      const day = new Date(`${record.day}T00:00:00Z`);
      const known = this.firstSeen.get(line.id);
      if (!known || day < known) this.firstSeen.set(line.id, day);
    }
  }

  page(): StatuspagePage {
    const { page } = this.snapshot;
    const changes = [
      ...this.snapshot.components.map((component) => component.since.getTime()),
      ...this.snapshot.incidents.map((incident) => incident.updatedAt.getTime()),
      ...this.snapshot.maintenances.map((maintenance) => maintenance.updatedAt.getTime()),
    ];
    const updatedAt = changes.length > 0 ? new Date(Math.max(...changes)) : this.snapshot.generatedAt;
    return { id: page.id, name: page.name, url: page.url, time_zone: 'Etc/UTC', updated_at: iso(updatedAt) };
  }

  status(): { page: StatuspagePage; status: { indicator: string; description: string } } {
    const { indicator, description } = overallStatus(this.snapshot);
    return { page: this.page(), status: { indicator, description } };
  }

  /**
   * The public components, and a group component for each group with more than one of them (its
   * members carry its `group_id`), as Statuspage lists groups among components.
   */
  components(): StatuspageComponent[] {
    const byGroup = new Map<string, StatusLine[]>();
    for (const line of this.lines) byGroup.set(line.group, [...(byGroup.get(line.group) ?? []), line]);
    const groupIdOf = (line: StatusLine): string | null => ((byGroup.get(line.group)?.length ?? 0) > 1 ? `group.${line.group}` : null);
    const out: StatuspageComponent[] = [];
    const emittedGroups = new Set<string>();
    for (const line of this.lines) {
      const groupId = groupIdOf(line);
      if (groupId && !emittedGroups.has(groupId)) {
        emittedGroups.add(groupId);
        const members = byGroup.get(line.group) ?? [];
        const worst = members.reduce((a, b) => (rank(publishedStatus(b.status)) > rank(publishedStatus(a.status)) ? b : a));
        out.push({
          ...this.component(worst),
          id: groupId,
          name: GROUP_NAMES[line.group],
          description: null,
          position: line.position,
          group_id: null,
          group: true,
          components: members.map((member) => member.id),
        });
      }
      out.push({ ...this.component(line), group_id: groupId });
    }
    return out;
  }

  private component(line: StatusLine): StatuspageComponent {
    const createdAt = this.firstSeen.get(line.id) ?? line.since;
    return {
      id: line.id,
      name: line.name,
      status: publishedStatus(line.status),
      created_at: iso(createdAt),
      updated_at: iso(line.since),
      position: line.position,
      description: line.description || null,
      showcase: true,
      start_date: createdAt.toISOString().slice(0, 10),
      group_id: null,
      page_id: this.snapshot.page.id,
      group: false,
      only_show_if_degraded: false,
    };
  }

  /** The public component that shows this component (itself, or its folded group). */
  publicComponent(componentId: string): StatuspageComponent | undefined {
    const line = this.lineOf.get(componentId);
    return line ? this.component(line) : undefined;
  }

  private componentsOf(componentIds: string[]): StatuspageComponent[] {
    const lines = [...new Set(componentIds.map((id) => this.lineOf.get(id)).filter((line): line is StatusLine => !!line))];
    return lines.map((line) => this.component(line));
  }

  private affected(affected: AffectedComponent[]): StatuspageAffectedComponent[] {
    const byLine = new Map<string, StatuspageAffectedComponent>();
    for (const change of affected) {
      const line = this.lineOf.get(change.componentId);
      if (!line) continue;
      const known = byLine.get(line.id);
      const oldStatus = publishedStatus(change.oldStatus);
      const newStatus = publishedStatus(change.newStatus);
      // Several members of a folded group: the group's change is its worst one.
      if (known && rank(known.new_status) >= rank(newStatus)) continue;
      byLine.set(line.id, { code: line.id, name: line.name, old_status: oldStatus, new_status: newStatus });
    }
    return [...byLine.values()];
  }

  private update(update: IncidentUpdate, incidentId: string): StatuspageIncidentUpdate {
    return {
      id: update.id,
      status: update.status,
      body: update.body,
      incident_id: incidentId,
      created_at: iso(update.at),
      updated_at: iso(update.at),
      display_at: iso(update.at),
      affected_components: this.affected(update.affected),
      deliver_notifications: true,
      custom_tweet: null,
      tweet_id: null,
    };
  }

  incident(incident: Incident): StatuspageIncident {
    return this.incidentLike(incident, {
      monitoring_at: isoOrNull(incident.monitoringAt),
      resolved_at: isoOrNull(incident.resolvedAt),
      started_at: iso(incident.startedAt),
    });
  }

  /** Statuspage shows a maintenance as an incident with its schedule. */
  maintenance(maintenance: Maintenance): StatuspageMaintenance {
    return {
      ...this.incidentLike(maintenance, {
        monitoring_at: null,
        resolved_at: maintenance.status === 'completed' ? iso(maintenance.updatedAt) : null,
        started_at: iso(maintenance.scheduledFor),
      }),
      scheduled_for: iso(maintenance.scheduledFor),
      scheduled_until: iso(maintenance.scheduledUntil),
    };
  }

  /** The fields an incident and a maintenance share; `times` are the ones each has its own way. */
  private incidentLike(
    item: Incident | Maintenance,
    times: Pick<StatuspageIncident, 'monitoring_at' | 'resolved_at' | 'started_at'>,
  ): StatuspageIncident {
    return {
      id: item.id,
      name: item.name,
      status: item.status,
      created_at: iso(item.createdAt),
      updated_at: iso(item.updatedAt),
      monitoring_at: times.monitoring_at,
      resolved_at: times.resolved_at,
      impact: item.impact,
      shortlink: `${this.baseUrl}/incidents/${encodeURIComponent(item.id)}`,
      started_at: times.started_at,
      page_id: this.snapshot.page.id,
      incident_updates: item.updates.map((update) => this.update(update, item.id)),
      components: this.componentsOf(item.componentIds),
    };
  }

  /** Newest first, at most 50 (as Statuspage's incidents.json). */
  incidents(which: 'all' | 'unresolved'): StatuspageIncident[] {
    const chosen = which === 'all' ? this.snapshot.incidents : openIncidents(this.snapshot);
    return [...chosen]
      .sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime())
      .slice(0, 50)
      .map((incident) => this.incident(incident));
  }

  maintenances(which: 'all' | 'upcoming' | 'active'): StatuspageMaintenance[] {
    const chosen =
      which === 'all'
        ? this.snapshot.maintenances
        : which === 'upcoming'
          ? upcomingMaintenances(this.snapshot)
          : activeMaintenances(this.snapshot);
    return [...chosen]
      .sort((a, b) => b.scheduledFor.getTime() - a.scheduledFor.getTime())
      .slice(0, 50)
      .map((maintenance) => this.maintenance(maintenance));
  }

  summary() {
    return {
      page: this.page(),
      components: this.components(),
      incidents: this.incidents('unresolved'),
      scheduled_maintenances: [...this.maintenances('active'), ...this.maintenances('upcoming')],
      status: this.status().status,
    };
  }
}

const RANKS: Record<ComponentStatus, number> = {
  operational: 0,
  under_maintenance: 1,
  degraded_performance: 2,
  partial_outage: 3,
  major_outage: 4,
};
const rank = (status: ComponentStatus): number => RANKS[status];
