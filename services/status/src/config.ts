import { Type } from '@sinclair/typebox';
import { CommonConfig, RequiredInProduction } from '@postbus/config';

const url = (name: string, port: number) =>
  Type.String({ default: `http://127.0.0.1:${port}`, pattern: '^https?://', description: `where the ${name} answers /readyz` });

const dbName = (service: string, fallback: string) =>
  Type.String({ default: fallback, pattern: '^[A-Za-z0-9_-]+$', description: `the ${service} service's database, pinged for the status` });

export const StatusConfig = Type.Object({
  ...CommonConfig,
  PORT: Type.Integer({ minimum: 0, maximum: 65535, default: 8090, description: 'the status page and operator API port' }),
  STATUS_HOST: Type.String({
    default: '127.0.0.1',
    minLength: 1,
    description: 'address the status service listens on; 0.0.0.0 to publish it (run it where the rest of Postbus is not)',
  }),
  STATUS_DB_NAME: Type.String({ default: 'postbus_status', pattern: '^[A-Za-z0-9_-]+$', description: "the status service's own database" }),
  STATUS_SNAPSHOT_FILE: Type.String({
    default: '.data/status-snapshot.json',
    minLength: 1,
    description: 'the state rewritten atomically every few seconds, loaded at start so the page answers with the database down',
  }),
  STATUS_PAGE_NAME: Type.String({ default: 'Postbus', minLength: 1, description: 'the name the page shows' }),
  STATUS_PUBLIC_URL: Type.String({
    default: '',
    description: "the page's public URL (links in feeds and notifications); empty: http://STATUS_HOST:PORT",
  }),
  STATUS_OPERATOR_TOKEN: Type.String({
    default: '',
    pattern: '^(|.{16,})$',
    [RequiredInProduction]: true,
    description: 'Bearer token of the operator API and CLI (16+ characters); empty: the operator API refuses every call',
  }),
  STATUS_SUBSCRIPTION_SECRET: Type.String({
    default: '',
    pattern: '^(|.{16,})$',
    [RequiredInProduction]: true,
    description:
      'signs the confirm and unsubscribe links of subscriptions (16+ characters); empty: a random one per process (development: links die with it)',
  }),
  STATUS_SECRETS_KEY: Type.String({
    default: '',
    [RequiredInProduction]: true,
    pattern: '^([A-Za-z0-9+/]{43}=)?$',
    description:
      "AES-256-GCM key (32 bytes, base64) sealing webhook subscribers' signing secrets at rest; empty: a random one per process (development: webhooks subscribed before a restart are no longer notified)",
  }),
  STATUS_SMTP_URL: Type.String({
    default: '',
    pattern: '^(|smtps?://.+)$',
    description:
      "the relay the page's own mails (subscription confirmations, notifications) go through — not Postbus's; empty: no email subscriptions",
  }),
  STATUS_MAIL_FROM: Type.String({ default: '', description: 'the sender of those mails; empty: status@ the public URL host' }),
  STATUS_WEBHOOK_ALLOW_PRIVATE: Type.Boolean({
    default: false,
    description: 'allow webhook subscriptions to private and loopback addresses (tests and closed networks only)',
  }),
  STATUS_CHECK_INTERVAL_MS: Type.Integer({ minimum: 200, default: 10_000, description: 'how often every probe runs' }),
  STATUS_FAILURES_TO_CHANGE: Type.Integer({
    minimum: 1,
    default: 3,
    description: 'failed checks in a row before a component leaves its status',
  }),
  STATUS_SUCCESSES_TO_RECOVER: Type.Integer({
    minimum: 1,
    default: 2,
    description: 'good checks in a row before a component is operational again',
  }),
  STATUS_PROBE_TIMEOUT_MS: Type.Integer({
    minimum: 100,
    default: 5_000,
    description: 'how long one probe may take before it counts as failed',
  }),
  STATUS_MAINTENANCE_VERIFY_MS: Type.Integer({
    minimum: 0,
    default: 120_000,
    description: 'how long a maintenance stays verifying after its window unless its components are seen operational first',
  }),
  STATUS_CONSUMER_LAG_DEGRADED: Type.Integer({
    minimum: 1,
    default: 10_000,
    description: 'messages a consumer group may lag behind before it counts as degraded',
  }),
  STATUS_CONSUMER_STUCK_CHECKS: Type.Integer({
    minimum: 2,
    default: 6,
    description: "checks in a row a consumer group's committed offsets may stand still while messages wait before it counts as stuck",
  }),
  STATUS_CONSUMER_GROUPS: Type.String({
    default:
      'postbus-users,postbus-mailer-triggers,postbus-mailer-projections,postbus-webhooks,postbus-webhooks-projects,postbus-payments,postbus-payments-users,postbus-erasure,postbus-erasure-users',
    description: 'comma-separated consumer groups whose lag is watched (KAFKA_NAMESPACE is applied)',
  }),
  GATEWAY_URL: url('gateway (public API, tracking edge, admin panel)', 8080),
  USERS_URL: url('users service', 8081),
  MAILER_URL: url('mailer', 8082),
  WEBHOOKS_URL: url('webhook dispatcher', 8083),
  PAYMENTS_URL: url('payments service', 8084),
  ERASURE_URL: url('erasure service', 8085),
  SMTP_URL: Type.String({
    default: 'smtp://127.0.0.1:1025',
    pattern: '^smtps?://',
    description: 'the relay the mailer sends through: greeted with EHLO',
  }),
  GATEWAY_DB_NAME: dbName('gateway', 'postbus_gateway'),
  USERS_DB_NAME: dbName('users', 'postbus_users'),
  MAILER_DB_NAME: dbName('mailer', 'postbus_mailer'),
  WEBHOOKS_DB_NAME: dbName('webhook dispatcher', 'postbus_webhooks'),
  PAYMENTS_DB_NAME: dbName('payments', 'postbus_payments'),
  ERASURE_DB_NAME: dbName('erasure', 'postbus_erasure'),
  STATUS_CANARY_CLIENT_ID: Type.String({ default: '', description: 'the canary client id; any STATUS_CANARY_* unset: no canary' }),
  STATUS_CANARY_API_KEY: Type.String({ default: '', description: "the canary client's API key" }),
  STATUS_CANARY_PROJECT_ID: Type.String({ default: '', description: 'the project the canary sends from' }),
  STATUS_CANARY_EMAIL_KEY: Type.String({ default: '', description: 'the transactional email the canary triggers (id or key)' }),
  STATUS_CANARY_TO: Type.String({ default: '', description: 'the address the canary mails (a mailbox that discards it)' }),
  STATUS_CANARY_INTERVAL_MS: Type.Integer({ minimum: 1000, default: 60_000, description: 'how often the canary sends' }),
  STATUS_SEND_DELAY_DEGRADED: Type.Integer({
    minimum: 1,
    default: 30_000,
    description: 'milliseconds from acceptance to `sent` above which Sending is degraded',
  }),
  STATUS_SEND_DELAY_OUTAGE: Type.Integer({
    minimum: 1,
    default: 120_000,
    description: 'milliseconds without `sent` after which the canary send counts as an outage',
  }),
});

export type StatusConfig = typeof StatusConfig.static;

export interface CanarySettings {
  clientId: string;
  apiKey: string;
  projectId: string;
  emailKey: string;
  to: string;
}

/** The canary's settings, or undefined when any of them is unset (the canary is off). */
export function canarySettings(config: StatusConfig): CanarySettings | undefined {
  const settings = {
    clientId: config.STATUS_CANARY_CLIENT_ID,
    apiKey: config.STATUS_CANARY_API_KEY,
    projectId: config.STATUS_CANARY_PROJECT_ID,
    emailKey: config.STATUS_CANARY_EMAIL_KEY,
    to: config.STATUS_CANARY_TO,
  };
  return Object.values(settings).every(Boolean) ? settings : undefined;
}
