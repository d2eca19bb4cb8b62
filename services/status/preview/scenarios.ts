import type {
  CanarySample,
  ComponentDefinition,
  DailyRecord,
  Incident,
  Maintenance,
  ObservedStatus,
  StatusEvent,
  StatusSnapshot,
  StatusSource,
} from '#status/domain/model';

/**
 * Made-up snapshots in each state the page can be in, for the publishers' tests and the preview
 * server (`node services/status/preview/dist/server.js`): deterministic, so screenshots compare.
 */

export const PREVIEW_DEFINITIONS: ComponentDefinition[] = [
  { id: 'api.gateway', name: 'API', group: 'api', description: 'The HTTP API: triggers, users, payments', public: true, position: 1 },
  {
    id: 'sending.mailer',
    name: 'Email sending',
    group: 'sending',
    description: 'Queued mail handed to the relay',
    public: true,
    position: 2,
  },
  {
    id: 'sending.canary',
    name: 'Send delay',
    group: 'sending',
    description: 'A canary mail end to end, every minute',
    public: true,
    position: 3,
  },
  {
    id: 'webhooks.dispatcher',
    name: 'Webhooks',
    group: 'webhooks',
    description: 'Event deliveries to your endpoints',
    public: true,
    position: 4,
  },
  {
    id: 'tracking.links',
    name: 'Open and click tracking',
    group: 'tracking',
    description: 'Tracking pixels and redirects',
    public: true,
    position: 5,
  },
  { id: 'admin.panel', name: 'Admin panel', group: 'admin', description: 'The web console', public: true, position: 6 },
  { id: 'infrastructure.kafka', name: 'Kafka', group: 'infrastructure', description: 'Message bus', public: false, position: 7 },
  {
    id: 'infrastructure.mongodb',
    name: 'Database',
    group: 'infrastructure',
    description: 'MongoDB-wire server',
    public: false,
    position: 8,
  },
  { id: 'infrastructure.smtp', name: 'SMTP relay', group: 'infrastructure', description: 'Outbound relay', public: false, position: 9 },
];

const DAY_MS = 86_400_000;

/** A small deterministic pseudo-random sequence (the same page every run). */
function sequence(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1_103_515_245 + 12_345) % 2_147_483_648;
    return state / 2_147_483_648;
  };
}

export interface SnapshotOptions {
  now?: Date;
  version?: number;
  /** Current statuses by component id; the rest are operational. */
  statuses?: Record<string, ObservedStatus>;
  incidents?: Incident[];
  maintenances?: Maintenance[];
  days?: DailyRecord[];
  canary?: CanarySample[];
  /** When true, a history of 89 good days with a few bad ones is generated (unless `days` is given). */
  history?: boolean;
  pageName?: string;
}

export const PREVIEW_NOW = new Date('2026-11-23T21:30:00Z');

/** Past days: all operational except a few, with the incident `inc-past` on one of them. */
export function sampleDays(now: Date, definitions = PREVIEW_DEFINITIONS): DailyRecord[] {
  const days: DailyRecord[] = [];
  const today = Date.parse(`${now.toISOString().slice(0, 10)}T00:00:00Z`);
  for (let back = 0; back < 90; back++) {
    const day = new Date(today - back * DAY_MS).toISOString().slice(0, 10);
    const observedMs = back === 0 ? now.getTime() - today : DAY_MS;
    for (const definition of definitions) {
      let worst: ObservedStatus = 'operational';
      let operationalMs = observedMs;
      const incidentIds: string[] = [];
      if (back === 12 && definition.id === 'sending.mailer') {
        worst = 'partial_outage';
        operationalMs = observedMs - 42 * 60_000;
        incidentIds.push('inc-past');
      }
      if (back === 30 && definition.id === 'infrastructure.kafka') {
        worst = 'degraded_performance';
        operationalMs = observedMs - 15 * 60_000;
      }
      if (back === 47 && definition.id === 'webhooks.dispatcher') {
        worst = 'major_outage';
        operationalMs = observedMs - 95 * 60_000;
        incidentIds.push('inc-older');
      }
      days.push({ day, componentId: definition.id, worst, observedMs, operationalMs, incidentIds });
    }
  }
  return days;
}

/** A canary send every 5 minutes over 24 h: 1–3 s, with a slow patch and two lost sends. */
export function sampleCanary(now: Date): CanarySample[] {
  const random = sequence(17);
  const samples: CanarySample[] = [];
  for (let minutes = 24 * 60; minutes >= 0; minutes -= 5) {
    const at = new Date(now.getTime() - minutes * 60_000);
    const slow = minutes > 300 && minutes < 360;
    const lost = minutes === 320 || minutes === 330;
    samples.push({ at, delayMs: lost ? null : Math.round((slow ? 6_000 : 1_200) + random() * (slow ? 4_000 : 1_500)) });
  }
  return samples;
}

export const PAST_INCIDENTS = (now: Date): Incident[] => {
  const at = (daysBack: number, minutes = 0) => new Date(now.getTime() - daysBack * DAY_MS + minutes * 60_000);
  return [
    {
      id: 'inc-past',
      name: 'Delayed email sending',
      status: 'resolved',
      impact: 'major',
      automatic: true,
      componentIds: ['sending.mailer'],
      createdAt: at(12),
      updatedAt: at(12, 42),
      startedAt: at(12),
      monitoringAt: at(12, 30),
      resolvedAt: at(12, 42),
      updates: [
        {
          id: 'inc-past-3',
          status: 'resolved',
          body: 'Sending is back to normal; the queue drained.',
          at: at(12, 42),
          affected: [{ componentId: 'sending.mailer', oldStatus: 'partial_outage', newStatus: 'operational' }],
        },
        {
          id: 'inc-past-2',
          status: 'monitoring',
          body: 'The relay accepts mail again; we are watching the queue.',
          at: at(12, 30),
          affected: [],
        },
        {
          id: 'inc-past-1',
          status: 'investigating',
          body: 'Mail is queuing: the relay answers slowly.',
          at: at(12),
          affected: [{ componentId: 'sending.mailer', oldStatus: 'operational', newStatus: 'partial_outage' }],
        },
      ],
    },
    {
      id: 'inc-older',
      name: 'Webhook deliveries failing',
      status: 'resolved',
      impact: 'critical',
      automatic: true,
      componentIds: ['webhooks.dispatcher'],
      createdAt: at(47),
      updatedAt: at(47, 95),
      startedAt: at(47),
      monitoringAt: null,
      resolvedAt: at(47, 95),
      updates: [
        {
          id: 'inc-older-2',
          status: 'resolved',
          body: 'Deliveries resumed; the missed ones were retried.',
          at: at(47, 95),
          affected: [{ componentId: 'webhooks.dispatcher', oldStatus: 'major_outage', newStatus: 'operational' }],
        },
        {
          id: 'inc-older-1',
          status: 'investigating',
          body: 'Webhook deliveries fail with timeouts.',
          at: at(47),
          affected: [{ componentId: 'webhooks.dispatcher', oldStatus: 'operational', newStatus: 'major_outage' }],
        },
      ],
    },
  ];
};

/** Today's cells show what is wrong now (the engine's would: the day's worst so far). */
function todayAsNow(days: DailyRecord[], now: Date, statuses: Record<string, ObservedStatus>): DailyRecord[] {
  const today = now.toISOString().slice(0, 10);
  return days.map((record) => {
    const current = statuses[record.componentId];
    if (record.day !== today || !current || current === 'operational') return record;
    const down = current === 'under_maintenance' ? 0 : 20 * 60_000;
    return { ...record, worst: current, operationalMs: record.observedMs - down };
  });
}

/** A snapshot of the preview components; everything not said is operational with a clean history. */
export function buildSnapshot(options: SnapshotOptions = {}): StatusSnapshot {
  const now = options.now ?? PREVIEW_NOW;
  const statuses = options.statuses ?? {};
  return {
    page: { id: 'postbus', name: options.pageName ?? 'Postbus', url: 'https://status.postbus.example' },
    generatedAt: now,
    version: options.version ?? 1,
    definitions: PREVIEW_DEFINITIONS,
    components: PREVIEW_DEFINITIONS.map((definition) => {
      const status = statuses[definition.id] ?? 'operational';
      return {
        id: definition.id,
        status,
        since: status === 'operational' ? new Date(now.getTime() - 5 * DAY_MS) : new Date(now.getTime() - 20 * 60_000),
        lastCheckAt: status === 'unknown' ? new Date(now.getTime() - 15 * 60_000) : new Date(now.getTime() - 20_000),
        detail: status === 'operational' ? 'readyz 200' : status === 'unknown' ? 'no check for 15 min' : `probe says ${status}`,
      };
    }),
    incidents: options.incidents ?? (options.history ? PAST_INCIDENTS(now) : []),
    maintenances: options.maintenances ?? [],
    days: options.days ?? (options.history ? todayAsNow(sampleDays(now), now, statuses) : []),
    canary: options.canary ?? (options.history ? sampleCanary(now) : []),
  };
}

export function openIncident(now: Date, overrides: Partial<Incident> = {}): Incident {
  const started = new Date(now.getTime() - 20 * 60_000);
  return {
    id: 'inc-open',
    name: 'Email sending is down',
    status: 'identified',
    impact: 'critical',
    automatic: true,
    componentIds: ['sending.mailer', 'infrastructure.smtp'],
    createdAt: started,
    updatedAt: new Date(now.getTime() - 5 * 60_000),
    startedAt: started,
    monitoringAt: null,
    resolvedAt: null,
    updates: [
      {
        id: 'inc-open-2',
        status: 'identified',
        body: 'The outbound relay refuses connections; mail is queued, not lost.',
        at: new Date(now.getTime() - 5 * 60_000),
        affected: [],
      },
      {
        id: 'inc-open-1',
        status: 'investigating',
        body: 'Email sending stopped. We are investigating.',
        at: started,
        affected: [
          { componentId: 'sending.mailer', oldStatus: 'operational', newStatus: 'major_outage' },
          { componentId: 'infrastructure.smtp', oldStatus: 'operational', newStatus: 'major_outage' },
        ],
      },
    ],
    ...overrides,
  };
}

export function activeMaintenance(now: Date, overrides: Partial<Maintenance> = {}): Maintenance {
  const from = new Date(now.getTime() - 30 * 60_000);
  return {
    id: 'mnt-db',
    name: 'Database upgrade',
    status: 'in_progress',
    impact: 'minor',
    componentIds: ['infrastructure.mongodb', 'admin.panel'],
    scheduledFor: from,
    scheduledUntil: new Date(now.getTime() + 60 * 60_000),
    createdAt: new Date(now.getTime() - 3 * DAY_MS),
    updatedAt: from,
    updates: [
      {
        id: 'mnt-db-2',
        status: 'in_progress',
        body: 'The upgrade has started; the admin panel may be slow.',
        at: from,
        affected: [{ componentId: 'admin.panel', oldStatus: 'operational', newStatus: 'under_maintenance' }],
      },
      {
        id: 'mnt-db-1',
        status: 'scheduled',
        body: 'We will upgrade the database.',
        at: new Date(now.getTime() - 3 * DAY_MS),
        affected: [],
      },
    ],
    ...overrides,
  };
}

export const PREVIEW_STATES = ['operational', 'degraded', 'major-outage', 'maintenance', 'stale'] as const;
export type PreviewState = (typeof PREVIEW_STATES)[number];

/** The page in each of its states, with 90 days of history and a day of canary sends. */
export function previewSnapshot(state: PreviewState, now = PREVIEW_NOW): StatusSnapshot {
  const history = { now, history: true };
  switch (state) {
    case 'operational':
      return buildSnapshot(history);
    case 'degraded':
      return buildSnapshot({
        ...history,
        statuses: { 'webhooks.dispatcher': 'degraded_performance', 'infrastructure.kafka': 'degraded_performance' },
      });
    case 'major-outage':
      return buildSnapshot({
        ...history,
        statuses: { 'sending.mailer': 'major_outage', 'infrastructure.smtp': 'major_outage', 'sending.canary': 'partial_outage' },
        incidents: [openIncident(now), ...PAST_INCIDENTS(now)],
      });
    case 'maintenance':
      return buildSnapshot({
        ...history,
        statuses: { 'infrastructure.mongodb': 'under_maintenance', 'admin.panel': 'under_maintenance' },
        maintenances: [activeMaintenance(now)],
      });
    case 'stale':
      return buildSnapshot({ ...history, statuses: { 'tracking.links': 'unknown', 'infrastructure.kafka': 'unknown' } });
  }
}

/** A StatusSource over a snapshot the test sets, with events it emits. */
export class FakeStatusSource implements StatusSource {
  private readonly listeners = new Set<(event: StatusEvent) => void>();

  constructor(public current: StatusSnapshot) {}

  snapshot(): StatusSnapshot {
    return this.current;
  }

  onEvent(listener: (event: StatusEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  emit(event: StatusEvent): void {
    for (const listener of this.listeners) listener(event);
  }

  get listenerCount(): number {
    return this.listeners.size;
  }
}
