import type { ComponentDefinition, ComponentStatus, Impact, ObservedStatus } from './model';

/** The service databases pinged one by one (Infrastructure, operators only). */
export const SERVICE_DATABASES = ['gateway', 'users', 'mailer', 'webhooks', 'payments', 'erasure', 'status'] as const;
export type ServiceDatabase = (typeof SERVICE_DATABASES)[number];

/** Stable ids: the publishers, the database and the operators' CLI refer to components by them. */
export const ComponentIds = {
  gateway: 'api.gateway',
  users: 'api.users',
  payments: 'api.payments',
  erasure: 'api.erasure',
  submission: 'api.submission',
  mailer: 'sending.mailer',
  relay: 'sending.relay',
  sendDelay: 'sending.delay',
  dispatcher: 'webhooks.dispatcher',
  tracking: 'tracking.edge',
  admin: 'admin.panel',
  kafka: 'infrastructure.kafka',
  consumerLag: 'infrastructure.consumer-lag',
  database: (db: ServiceDatabase) => `infrastructure.database.${db}`,
} as const;

/** Every component Postbus publishes, in page order. */
export function componentDefinitions(): ComponentDefinition[] {
  const list: Omit<ComponentDefinition, 'position'>[] = [
    { id: ComponentIds.gateway, name: 'Public API', group: 'api', description: 'The HTTP API (/v1) clients call.', public: true },
    { id: ComponentIds.users, name: 'User data', group: 'api', description: 'Creating and updating users.', public: true },
    { id: ComponentIds.payments, name: 'Payments', group: 'api', description: 'Recording payments and revenue analytics.', public: true },
    { id: ComponentIds.erasure, name: 'Erasure', group: 'api', description: 'GDPR erasure of users.', public: true },
    {
      id: ComponentIds.submission,
      name: 'SMTP submission',
      group: 'api',
      description: 'SMTP on ports 587 and 465, which apps send mail through with their own mailer.',
      public: true,
    },
    { id: ComponentIds.mailer, name: 'Mailer', group: 'sending', description: 'Rendering and sending triggered emails.', public: true },
    { id: ComponentIds.relay, name: 'SMTP relay', group: 'sending', description: 'The relay outgoing mail leaves through.', public: true },
    {
      id: ComponentIds.sendDelay,
      name: 'Send delay',
      group: 'sending',
      description: 'Time from an accepted trigger to its email being sent, measured by a canary every minute.',
      public: true,
    },
    {
      id: ComponentIds.dispatcher,
      name: 'Webhook delivery',
      group: 'webhooks',
      description: 'Delivering events to webhook endpoints.',
      public: true,
    },
    {
      id: ComponentIds.tracking,
      name: 'Open & click tracking',
      group: 'tracking',
      description: 'Tracking pixels, links and unsubscribe pages.',
      public: true,
    },
    { id: ComponentIds.admin, name: 'Admin panel', group: 'admin', description: 'The web admin panel.', public: true },
    { id: ComponentIds.kafka, name: 'Kafka', group: 'infrastructure', description: 'The message broker.', public: false },
    {
      id: ComponentIds.consumerLag,
      name: 'Consumer lag',
      group: 'infrastructure',
      description: 'How far the services are behind the messages waiting for them.',
      public: false,
    },
    ...SERVICE_DATABASES.map((db) => ({
      id: ComponentIds.database(db),
      name: `Database (${db})`,
      group: 'infrastructure' as const,
      description: `The ${db} service's MongoDB database.`,
      public: false,
    })),
  ];
  return list.map((definition, position) => ({ ...definition, position }));
}

/** How bad a status is, for "worst of" and for comparisons. Unknown sits between good and degraded. */
export const SEVERITY: Record<ObservedStatus, number> = {
  operational: 0,
  under_maintenance: 1,
  unknown: 2,
  degraded_performance: 3,
  partial_outage: 4,
  major_outage: 5,
};

export const worstOf = (a: ObservedStatus, b: ObservedStatus): ObservedStatus => (SEVERITY[b] > SEVERITY[a] ? b : a);

/** The impact of an incident a component's status opens (Statuspage's mapping). */
export function impactOf(status: ObservedStatus): Impact {
  switch (status) {
    case 'degraded_performance':
      return 'minor';
    case 'partial_outage':
      return 'major';
    case 'major_outage':
      return 'critical';
    case 'operational':
    case 'under_maintenance':
    case 'unknown':
      return 'none';
  }
}

const IMPACT_RANK: Record<Impact, number> = { none: 0, minor: 1, major: 2, critical: 3 };
export const worstImpact = (a: Impact, b: Impact): Impact => (IMPACT_RANK[b] > IMPACT_RANK[a] ? b : a);

/** A status that counts as up for the uptime percentage. */
export const countsAsUp = (status: ObservedStatus): boolean => status === 'operational' || status === 'under_maintenance';

/** An outage status (what a check reports); `operational` is the only good one. */
export const isBad = (status: ComponentStatus): boolean => status !== 'operational' && status !== 'under_maintenance';
