import { Type } from '@sinclair/typebox';
import { CommonConfig, InternalApiConfig, RequiredInProduction } from '@postbus/config';

/** The Standard Webhooks schedule: immediately, 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 14 h, 20 h, 24 h. */
export const DEFAULT_RETRY_SCHEDULE = '0,5,300,1800,7200,18000,36000,50400,72000,86400';

export const DispatcherConfig = Type.Object({
  ...CommonConfig,
  ...InternalApiConfig,
  PORT: Type.Integer({ minimum: 0, maximum: 65535, default: 8083, description: 'internal API port' }),
  WEBHOOKS_DB_NAME: Type.String({
    default: 'postbus_webhooks',
    pattern: '^[A-Za-z0-9_-]+$',
    description: "the webhook dispatcher's own database",
  }),
  SECRETS_KEY: Type.String({
    default: '',
    [RequiredInProduction]: true,
    pattern: '^([A-Za-z0-9+/]{43}=)?$',
    description: 'AES-256-GCM key (32 bytes, base64) sealing endpoint secrets at rest; empty: a random one per process (development only)',
  }),
  WEBHOOK_RETRY_SCHEDULE: Type.String({
    default: DEFAULT_RETRY_SCHEDULE,
    pattern: '^\\d+(\\.\\d+)?(,\\d+(\\.\\d+)?)*$',
    description: 'seconds before each attempt, comma-separated (the first is the first attempt, usually 0)',
  }),
  WEBHOOK_ALLOWED_HOSTS: Type.String({
    default: '',
    pattern: '^([^,\\s]+(,[^,\\s]+)*)?$',
    description: 'host names or IP addresses that may resolve to private, loopback or link-local addresses (comma-separated)',
  }),
  WEBHOOK_TIMEOUT_MS: Type.Integer({ minimum: 100, default: 10_000, description: 'how long one delivery attempt may take' }),
  WEBHOOK_CONCURRENCY: Type.Integer({ minimum: 1, default: 32, description: 'delivery attempts in flight per instance' }),
  WEBHOOK_SECRET_OVERLAP_MS: Type.Integer({
    minimum: 0,
    default: 86_400_000,
    description: 'after a rotation, how long the previous secret still signs alongside the new one',
  }),
  WEBHOOK_DELIVERY_RETENTION_DAYS: Type.Integer({
    minimum: 1,
    default: 30,
    description:
      'days a delivery and its attempts are kept; longer than the retry schedule (30, as Stripe keeps events: well past the last automatic retry, about 3 days after the event, to look into failures and retry by hand)',
  }),
  WEBHOOK_RETENTION_INTERVAL_MS: Type.Integer({
    minimum: 1000,
    default: 3_600_000,
    description: 'how often an instance looks for deliveries past their retention (one instance purges per interval)',
  }),
});

export type DispatcherConfig = typeof DispatcherConfig.static;

/** The retry schedule in milliseconds. */
export const retrySchedule = (config: DispatcherConfig): number[] => config.WEBHOOK_RETRY_SCHEDULE.split(',').map((s) => Number(s) * 1000);
