import { Type } from '@sinclair/typebox';
import { CommonConfig, ErasureAuditConfig, InternalApiConfig, RequiredInProduction, TemplateEngineConfig } from '@postbus/config';

export const MailerConfig = Type.Object({
  ...CommonConfig,
  ...InternalApiConfig,
  PORT: Type.Integer({ minimum: 0, maximum: 65535, default: 8082, description: 'internal read API port' }),
  MAILER_DB_NAME: Type.String({ default: 'postbus_mailer', pattern: '^[A-Za-z0-9_-]+$', description: "the mailer's own database" }),
  USERS_URL: Type.String({
    default: 'http://127.0.0.1:8081',
    pattern: '^https?://',
    description:
      "base URL of the users service's internal API: a stored profile's language, read for a template with language variants when the send names no language",
  }),
  SMTP_URL: Type.String({
    default: 'smtp://127.0.0.1:1025',
    pattern: '^smtps?://',
    description: 'the relay mail goes out through (smtp:// or smtps://, credentials in the URL)',
  }),
  SMTP_POOL_CONNECTIONS: Type.Integer({ minimum: 1, maximum: 100, default: 8, description: 'pooled SMTP connections to the relay' }),
  SECRETS_KEY: Type.String({
    default: '',
    [RequiredInProduction]: true,
    pattern: '^([A-Za-z0-9+/]{43}=)?$',
    description: "AES-256-GCM key (32 bytes, base64), the gateway's: opens the DKIM keys inside catalog events",
  }),
  TRACKING_SECRET: Type.String({
    default: '',
    [RequiredInProduction]: true,
    pattern: '^(|.{32,})$',
    description: "signs tracking and unsubscribe links (32+ characters), the gateway's; empty: a random one (development only)",
  }),
  TRACKING_TOKEN_TTL_DAYS: Type.Integer({
    minimum: 1,
    default: 180,
    description: 'how long the tracking and unsubscribe links of a sent email answer; after that the edge answers 404',
  }),
  PUBLIC_BASE_URL: Type.String({
    default: 'http://127.0.0.1:8080',
    pattern: '^https?://[^/]+$',
    description: "the gateway's public origin, for unsubscribe links (and tracking links of projects without a tracking domain)",
  }),
  MAILER_MAX_ATTEMPTS: Type.Integer({
    minimum: 1,
    default: 8,
    description: 'delivery attempts of a deferred (4xx) message before it fails',
  }),
  MAILER_RETRY_BASE_MS: Type.Integer({
    minimum: 10,
    default: 60_000,
    description: 'wait before the second attempt; each further one waits twice as long (with jitter)',
  }),
  MAILER_RETRY_MAX_MS: Type.Integer({ minimum: 10, default: 3_600_000, description: 'longest wait between two attempts' }),
  ...ErasureAuditConfig,
  SOFT_BOUNCE_LIMIT: Type.Integer({
    minimum: 1,
    default: 5,
    description:
      'soft-bounced messages to one address in a row (delays, full mailboxes reported after sending; a message opened or clicked since starts the count again) after which it is suppressed (soft_bounce_limit)',
  }),
  FEEDBACK_RATE_WHILE_SENDING: Type.Integer({
    minimum: 1,
    default: 20,
    description:
      'delivery reports (bounces) recorded a second at most while triggers are being delivered, so that a wave of DSNs never slows the mail; at once otherwise',
  }),
  MAILER_BULK_RATE_WHILE_SENDING: Type.Integer({
    minimum: 1,
    default: 20,
    description:
      "batch sends' messages delivered a second at most while single sends are being delivered, so that one client's batches never hold up another's single send; as fast as the mailer goes otherwise",
  }),
  MAILER_SCHEDULE_POLL_MS: Type.Integer({
    minimum: 50,
    maximum: 4_000,
    default: 1_000,
    description: 'how often scheduled sends that are due are looked for: a message goes within this (and the send itself) of its send_at',
  }),
  MAILER_SCHEDULE_LEASE_MS: Type.Integer({
    minimum: 1_000,
    default: 60_000,
    description: 'how long an instance holds a due scheduled send it took: one whose instance died is taken by another after this',
  }),
  MAILER_CATALOG_WAIT_MS: Type.Integer({
    minimum: 0,
    default: 30_000,
    description: 'how long a trigger waits for the catalog entities it names to reach this service before it fails',
  }),
  MESSAGE_RETENTION_DAYS: Type.Integer({
    minimum: 1,
    default: 45,
    description:
      'days messages and their timelines are kept; older ones are purged (hourly, in chunks). A scheduled message is kept while it waits, and counts its days from its send_at',
  }),
  ATTACHMENT_QUOTA_BYTES: Type.Integer({
    minimum: 0,
    default: 10 * 1024 ** 3,
    description:
      'bytes of attachments one project may hold (10 GiB by default; 0: no bound): a send whose files would pass it is refused with a 413, and space comes back as messages pass MESSAGE_RETENTION_DAYS or their recipients are erased',
  }),
  MESSAGE_RETENTION_INTERVAL_MS: Type.Integer({
    minimum: 1_000,
    default: 3_600_000,
    description: 'how often the purge of messages past MESSAGE_RETENTION_DAYS runs',
  }),
  ...TemplateEngineConfig,
  TEMPLATE_POOL_WAIT_MS: Type.Integer({
    minimum: 100,
    default: 30_000,
    description:
      "how long a retried message may wait for its client's earlier heavy renders (the retry worker's, which holds no run); past it the message is deferred again",
  }),
  TEMPLATE_RUN_PATIENCE_MS: Type.Integer({
    minimum: 50,
    default: 300,
    description:
      "how long a message's first render on a worker thread (its wait for its client's earlier ones included) may keep the run it came in waiting, everyone's mail behind that run with it; past it the message is deferred, and its retry waits its turn",
  }),
});

export type MailerConfig = typeof MailerConfig.static;
