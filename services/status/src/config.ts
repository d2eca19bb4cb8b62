import { Type } from '@sinclair/typebox';
import { CommonConfig, RequiredInProduction } from '@postbus/config';
import { ConsumerGroups } from '@postbus/contracts';
import { DEFAULT_SUBSCRIPTION_LIMITS, type SubscriptionLimits } from './domain/subscription-limits';

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
    description:
      'admit webhook subscriptions to any address and port, private and loopback included (tests and closed networks only; STATUS_WEBHOOK_ALLOWED_HOSTS admits chosen hosts instead)',
  }),
  STATUS_WEBHOOK_ALLOWED_HOSTS: Type.String({
    default: '',
    pattern: '^([^,\\s]+(,[^,\\s]+)*)?$',
    description:
      'hosts a webhook subscription may name although they are, or resolve to, private or loopback addresses, and on ports other than 80 and 443 (comma-separated: `host` for every port, `host:port` or `host:first-last`; `[::1]:9000` for IPv6)',
  }),
  STATUS_TRUST_PROXY: Type.String({
    default: '',
    pattern: '^[A-Za-z0-9.:/, _-]*$',
    description:
      "which proxies' X-Forwarded-For names the client address the subscription limits count by (express 'trust proxy': a hop count, loopback, or addresses/CIDRs); empty: none",
  }),
  STATUS_SUBSCRIBE_LIMIT_PER_CLIENT: Type.Integer({
    minimum: 0,
    default: DEFAULT_SUBSCRIPTION_LIMITS.perClient,
    description:
      'subscription requests one client address (an IPv6 client: its /64) may make per STATUS_SUBSCRIBE_LIMIT_WINDOW_MS; past it, 429 with Retry-After; 0: no limit',
  }),
  STATUS_SUBSCRIBE_LIMIT_GLOBAL: Type.Integer({
    minimum: 0,
    default: DEFAULT_SUBSCRIPTION_LIMITS.global,
    description:
      'subscription requests from everyone together per STATUS_SUBSCRIBE_LIMIT_WINDOW_MS (this instance); past it, 429 with Retry-After; 0: no limit',
  }),
  STATUS_SUBSCRIBE_LIMIT_WINDOW_MS: Type.Integer({
    minimum: 1000,
    default: DEFAULT_SUBSCRIPTION_LIMITS.windowMs,
    description: 'the window both subscription limits count over (they refill evenly across it)',
  }),
  STATUS_SUBSCRIBERS_MAX: Type.Integer({
    minimum: 1,
    default: DEFAULT_SUBSCRIPTION_LIMITS.maxSubscribers,
    description:
      'subscribers (email and webhook, confirmed or not) the page keeps at most; past it, new subscriptions are refused with 409',
  }),
  STATUS_UNCONFIRMED_TTL_MS: Type.Integer({
    minimum: 1000,
    default: DEFAULT_SUBSCRIPTION_LIMITS.unconfirmedTtlMs,
    description: 'how long an email subscriber may stay unconfirmed: then its confirmation link stops working and the service removes it',
  }),
  STATUS_CONFIRMATION_RESEND_MS: Type.Integer({
    minimum: 0,
    default: DEFAULT_SUBSCRIPTION_LIMITS.confirmationResendMs,
    description:
      'at most one confirmation mail per address in this long: subscribing an address again sooner sends nothing (and answers the same)',
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
    default: Object.values(ConsumerGroups).join(','),
    description: 'comma-separated consumer groups whose lag is watched (KAFKA_NAMESPACE is applied)',
  }),
  GATEWAY_URL: url('gateway (public API, tracking edge, admin panel)', 8080),
  USERS_URL: url('users service', 8081),
  MAILER_URL: url('mailer', 8082),
  WEBHOOKS_URL: url('webhook dispatcher', 8083),
  PAYMENTS_URL: url('payments service', 8084),
  ERASURE_URL: url('erasure service', 8085),
  SUBMISSION_URL: url('SMTP submission service (its internal listener)', 8088),
  SUBMISSION_SMTP_URL: Type.String({
    default: 'smtp://127.0.0.1:2587',
    pattern: '^smtps?://',
    description:
      "SMTP submission's STARTTLS port (smtps:// for its implicit TLS one): a session opened as an app's mailer opens one, which must reach TLS with a certificate in its validity period and be offered AUTH",
  }),
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

/** The subscription limits as configured. */
export const subscriptionLimits = (config: StatusConfig): SubscriptionLimits => ({
  perClient: config.STATUS_SUBSCRIBE_LIMIT_PER_CLIENT,
  global: config.STATUS_SUBSCRIBE_LIMIT_GLOBAL,
  windowMs: config.STATUS_SUBSCRIBE_LIMIT_WINDOW_MS,
  maxSubscribers: config.STATUS_SUBSCRIBERS_MAX,
  unconfirmedTtlMs: config.STATUS_UNCONFIRMED_TTL_MS,
  confirmationResendMs: config.STATUS_CONFIRMATION_RESEND_MS,
});
