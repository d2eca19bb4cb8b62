import { randomBytes } from 'node:crypto';
import type { lookup as dnsLookup } from 'node:dns';
import type { Server } from 'node:http';
import express, { type Router } from 'express';
import { kafkaConnection } from '@postbus/bus';
import { topicName } from '@postbus/contracts';
import { SecretBox } from '@postbus/crypto';
import {
  AddressPolicy,
  closeServer,
  every as repeatEvery,
  healthRouter,
  listen,
  notFoundHandler,
  parseAllowedHost,
  problemHandler,
  requestId,
} from '@postbus/http';
import type { Logger } from '@postbus/logger';
import { canarySettings, subscriptionLimits, type StatusConfig } from './config';
import { canaryProbe } from './clients/probes/canary';
import { pageProbe, readyzProbe } from './clients/probes/http-probes';
import { kafkaProbe } from './clients/probes/kafka-probe';
import { mongoProbe } from './clients/probes/mongo-probe';
import type { Probe } from './clients/probes/probe';
import { smtpProbe } from './clients/probes/smtp-probe';
import { StatusMailer } from './clients/status-mailer';
import { postNotification } from './clients/webhook-sender';
import { ComponentIds, componentDefinitions, SERVICE_DATABASES, type ServiceDatabase } from './domain/components';
import type { StatusSource } from './domain/model';
import { Monitor } from './domain/monitor';
import { DEFAULT_WEBHOOK_RETRY_SCHEDULE_MS, NotificationOutbox } from './domain/notification-outbox';
import { Notifier, notificationSenders } from './domain/notifier';
import { StatusEngine, type Clock } from './domain/status-engine';
import type { SubscriptionLimits } from './domain/subscription-limits';
import { SubscriptionTokens } from './domain/subscription-tokens';
import { Subscriptions } from './domain/subscriptions';
import { operatorApi } from './http/operator-api';
import { publicRouter } from './http/public-router';
import { DeferredSubscriberStore } from './model/deferred-subscriber.repository';
import { LastReadSubscribers } from './model/last-read-subscribers.repository';
import { OutboxFile, outboxPathFor } from './model/outbox-file';
import { Persistence } from './model/persistence';
import { SnapshotFile } from './model/snapshot-file';
import type { SubscriberStore } from './model/subscriber.repository';

export interface StatusService {
  port: number;
  url: string;
  engine: StatusEngine;
  stop(): Promise<void>;
}

const TICK_MS = 500;

/**
 * Starts the status service: the engine loaded from its snapshot file, the probes, the
 * persistence (database when reachable) and the HTTP server. Nothing here waits for Kafka or
 * MongoDB: the page answers whatever else is down.
 */
export async function start({ config, logger, clock }: { config: StatusConfig; logger: Logger; clock?: Clock }): Promise<StatusService> {
  const interval = config.STATUS_CHECK_INTERVAL_MS;
  const timeout = Math.min(config.STATUS_PROBE_TIMEOUT_MS, Math.max(interval, 1000));
  const canary = canarySettings(config);
  const allowedWebhookHosts = config.STATUS_WEBHOOK_ALLOWED_HOSTS.split(',').filter((entry) => entry.trim() !== '');
  // A bad entry stops the start here, before anything listens or connects.
  for (const entry of allowedWebhookHosts) parseAllowedHost(entry, 'STATUS_WEBHOOK_ALLOWED_HOSTS');
  const staleAfter = (componentId: string) =>
    componentId === ComponentIds.sendDelay
      ? 2 * config.STATUS_CANARY_INTERVAL_MS + config.STATUS_SEND_DELAY_OUTAGE + timeout
      : 3 * interval + timeout;

  // Listening first: with PORT=0 (tests) the page's absolute links need the real port. Ready only
  // once every route is mounted; from then on whatever else is down, since it serves from memory.
  let serving = false;
  const app = express();
  app.disable('x-powered-by');
  // The subscription limits count per client address: behind a proxy, the one X-Forwarded-For names.
  if (config.STATUS_TRUST_PROXY)
    app.set('trust proxy', /^\d+$/.test(config.STATUS_TRUST_PROXY) ? Number(config.STATUS_TRUST_PROXY) : config.STATUS_TRUST_PROXY);
  app.use(requestId);
  app.use(healthRouter('status', { engine: () => serving }));
  const { server, port }: { server: Server; port: number } = await listen(app, config.PORT, config.STATUS_HOST);
  const url = `http://${config.STATUS_HOST.includes(':') ? `[${config.STATUS_HOST}]` : config.STATUS_HOST}:${port}`;
  const publicUrl = (config.STATUS_PUBLIC_URL || url).replace(/\/+$/, '');

  const engine = new StatusEngine({
    page: { id: 'postbus', name: config.STATUS_PAGE_NAME, url: publicUrl },
    definitions: componentDefinitions(),
    damping: { failuresToChange: config.STATUS_FAILURES_TO_CHANGE, successesToRecover: config.STATUS_SUCCESSES_TO_RECOVER },
    staleAfterMs: staleAfter,
    maintenanceVerifyMs: config.STATUS_MAINTENANCE_VERIFY_MS,
    ...(clock ? { clock } : {}),
  });
  const persistence = new Persistence({
    engine,
    file: new SnapshotFile(config.STATUS_SNAPSHOT_FILE),
    mongoUrl: config.MONGO_URL,
    dbName: config.STATUS_DB_NAME,
    logger,
  });
  await persistence.start();

  const dbNames: Record<ServiceDatabase, string> = {
    gateway: config.GATEWAY_DB_NAME,
    users: config.USERS_DB_NAME,
    mailer: config.MAILER_DB_NAME,
    webhooks: config.WEBHOOKS_DB_NAME,
    payments: config.PAYMENTS_DB_NAME,
    erasure: config.ERASURE_DB_NAME,
    status: config.STATUS_DB_NAME,
  };
  const every = { intervalMs: interval, timeoutMs: timeout };
  const probes: Probe[] = [
    readyzProbe({ componentId: ComponentIds.gateway, service: 'gateway', url: config.GATEWAY_URL, ...every }),
    readyzProbe({ componentId: ComponentIds.users, service: 'users', url: config.USERS_URL, ...every }),
    readyzProbe({ componentId: ComponentIds.payments, service: 'payments', url: config.PAYMENTS_URL, ...every }),
    readyzProbe({ componentId: ComponentIds.erasure, service: 'erasure', url: config.ERASURE_URL, ...every }),
    readyzProbe({ componentId: ComponentIds.mailer, service: 'mailer', url: config.MAILER_URL, ...every }),
    readyzProbe({ componentId: ComponentIds.dispatcher, service: 'webhook dispatcher', url: config.WEBHOOKS_URL, ...every }),
    smtpProbe({ componentId: ComponentIds.relay, smtpUrl: config.SMTP_URL, ...every }),
    pageProbe({
      componentId: ComponentIds.tracking,
      what: 'tracking edge',
      url: `${config.GATEWAY_URL}/t/o/status-probe`,
      expectOk: false,
      ...every,
    }),
    pageProbe({ componentId: ComponentIds.admin, what: 'admin panel', url: `${config.GATEWAY_URL}/admin/`, expectOk: true, ...every }),
    kafkaProbe({
      kafkaComponentId: ComponentIds.kafka,
      lagComponentId: ComponentIds.consumerLag,
      connection: kafkaConnection(config),
      groups: config.STATUS_CONSUMER_GROUPS.split(',')
        .map((g) => g.trim())
        .filter(Boolean)
        .map((g) => topicName(g, config.KAFKA_NAMESPACE)),
      lagDegraded: config.STATUS_CONSUMER_LAG_DEGRADED,
      stuckChecks: config.STATUS_CONSUMER_STUCK_CHECKS,
      ...every,
    }),
    mongoProbe({
      databases: SERVICE_DATABASES.map((db) => ({ componentId: ComponentIds.database(db), dbName: dbNames[db] })),
      connection: () => persistence.databaseLink(),
      ...every,
    }),
  ];
  if (canary) {
    probes.push(
      canaryProbe({
        componentId: ComponentIds.sendDelay,
        gatewayUrl: config.GATEWAY_URL,
        settings: canary,
        intervalMs: config.STATUS_CANARY_INTERVAL_MS,
        timeoutMs: timeout,
        degradedMs: config.STATUS_SEND_DELAY_DEGRADED,
        outageMs: config.STATUS_SEND_DELAY_OUTAGE,
        onSample: (sample) => engine.recordCanary(sample),
      }),
    );
  } else {
    engine.markNotMonitored(
      ComponentIds.sendDelay,
      'the canary is not configured (STATUS_CANARY_CLIENT_ID, _API_KEY, _PROJECT_ID, _EMAIL_KEY, _TO)',
    );
  }
  // The canary polls for up to its outage bound; other probes are cut off after their timeout and a margin.
  const monitor = new Monitor(engine, probes, logger, Math.max(timeout * 3, config.STATUS_SEND_DELAY_OUTAGE + 2 * timeout), clock);
  monitor.start();
  const ticker = setInterval(() => engine.tick(), TICK_MS);

  app.use(operatorApi(engine, config.STATUS_OPERATOR_TOKEN));
  // The public face (page, Statuspage v2 JSON, feeds, badges, subscriptions), all from engine.snapshot().
  const publishing = statusPublishing(engine, {
    baseUrl: publicUrl,
    ...(config.STATUS_OPERATOR_TOKEN ? { operatorToken: config.STATUS_OPERATOR_TOKEN } : {}),
    subscribers: new DeferredSubscriberStore(
      () => persistence.currentConnection(),
      new SecretBox(config.STATUS_SECRETS_KEY || undefined),
      (subscriberId) =>
        logger.warn("a webhook subscriber's secret was sealed under another STATUS_SECRETS_KEY; it is not notified", { subscriberId }),
    ),
    tokenSecret: config.STATUS_SUBSCRIPTION_SECRET || randomBytes(32).toString('base64url'),
    ...(config.STATUS_SMTP_URL ? { smtpUrl: config.STATUS_SMTP_URL } : {}),
    ...(config.STATUS_MAIL_FROM ? { mailFrom: config.STATUS_MAIL_FROM } : {}),
    allowPrivateWebhooks: config.STATUS_WEBHOOK_ALLOW_PRIVATE,
    allowedWebhookHosts,
    limits: subscriptionLimits(config),
    outboxFile: outboxPathFor(config.STATUS_SNAPSHOT_FILE),
    logger,
  });
  app.use(publishing);
  app.use(notFoundHandler);
  app.use(problemHandler(logger, '64kb'));
  serving = true;
  logger.info('status service started', {
    port,
    host: config.STATUS_HOST,
    canary: Boolean(canary),
    operatorApi: Boolean(config.STATUS_OPERATOR_TOKEN),
  });

  return {
    port,
    url,
    engine,
    async stop() {
      clearInterval(ticker);
      await closeServer(server);
      await publishing.stop();
      await monitor.stop();
      await persistence.stop();
    },
  };
}

export interface PublishingOptions {
  /** The page's public address, e.g. `https://status.example.com` (links in pages, feeds and mails). */
  baseUrl: string;
  /** Unlocks the operator view; without it there is none. */
  operatorToken?: string;
  subscribers: SubscriberStore;
  /** Signs the confirm and unsubscribe links. */
  tokenSecret: string;
  /** STATUS_SMTP_URL; without it email subscription is refused (503). */
  smtpUrl?: string;
  mailFrom?: string;
  /** Admit webhooks to every address and port, private and loopback included (tests, closed networks). */
  allowPrivateWebhooks?: boolean;
  /**
   * Hosts a webhook may name although they are, or resolve to, private addresses, and on ports
   * other than 80 and 443: `host` (every port), `host:port` or `host:first-last`.
   */
  allowedWebhookHosts?: string[];
  /** Resolves webhook hosts (dns.lookup by default; tests pass a table). */
  webhookResolver?: typeof dnsLookup;
  /** Subscription rates, the size of the list, unconfirmed expiry and confirmation resends; DEFAULT_SUBSCRIPTION_LIMITS for what is not given. */
  limits?: Partial<SubscriptionLimits>;
  /** How often unconfirmed subscribers past their time are removed; a quarter of that time, at most 10 minutes, by default. */
  sweepIntervalMs?: number;
  /** Milliseconds before each attempt of a notification (webhook or mail); Standard Webhooks' schedule by default. */
  webhookRetryScheduleMs?: number[];
  /** Where pending notifications and their retries are kept across restarts; in memory only without it. */
  outboxFile?: string;
  /** While the subscribers cannot be read (the database is down), notifications wait this long between tries; 5 s by default. */
  lookupRetryMs?: number;
  /** How long a confirmation link works; as long as an unconfirmed subscriber is kept by default, and never longer. */
  confirmTtlMs?: number;
  logger?: Logger;
}

export type Publishing = Router & {
  /** Stops listening to the source and sending (what is pending stays in the outbox file), closes the SMTP transport. */
  stop(): Promise<void>;
  /** Resolves when the notifications of every event so far have been handed on, and every confirmation mail started so far has been sent or has failed (tests wait on it). */
  idle(): Promise<void>;
};

/**
 * The public face wired together: the routes (`http/public-router.ts`) over the subscription rules
 * (`domain/subscriptions.ts`), and the notifier (`domain/notifier.ts`) with its outbox
 * (`domain/notification-outbox.ts`, kept in `model/outbox-file.ts`), the SMTP mailer
 * (`clients/status-mailer.ts`), the webhook sender (`clients/webhook-sender.ts`) and the subscribers
 * last read (`model/last-read-subscribers.repository.ts`); plus the timer that removes unconfirmed
 * subscribers past their time. Mounted at the root; `stop()` on shutdown, before the database closes.
 */
export function statusPublishing(source: StatusSource, options: PublishingOptions): Publishing {
  const baseUrl = options.baseUrl.replace(/\/+$/, '');
  const { logger } = options;
  const tokens = new SubscriptionTokens(options.tokenSecret);
  const policy = options.allowPrivateWebhooks
    ? undefined
    : new AddressPolicy((options.allowedWebhookHosts ?? []).map((h) => h.trim()).filter(Boolean), options.webhookResolver, {
        setting: 'STATUS_WEBHOOK_ALLOWED_HOSTS',
      });
  const mailer = options.smtpUrl
    ? new StatusMailer({
        smtpUrl: options.smtpUrl,
        from: options.mailFrom ?? `status@${new URL(baseUrl).hostname}`,
        pageName: source.snapshot().page.name,
      })
    : undefined;
  const lookupRetryMs = options.lookupRetryMs ?? 5_000;
  const outbox = new NotificationOutbox({
    subscribers: options.subscribers,
    senders: notificationSenders((subscriber, messageId, body) => postNotification(policy, subscriber, messageId, body), mailer),
    retryScheduleMs: options.webhookRetryScheduleMs ?? DEFAULT_WEBHOOK_RETRY_SCHEDULE_MS,
    lookupRetryMs,
    ...(options.outboxFile ? { file: new OutboxFile(options.outboxFile) } : {}),
    ...(logger ? { logger } : {}),
  });
  const notifier = new Notifier(source, {
    subscribers: options.subscribers,
    baseUrl,
    // Called on events only, once everything here is built.
    unsubscribeUrl: (subscriber): string => subscriptions.unsubscribeUrl(subscriber),
    outbox,
    mailer,
    lastRead: new LastReadSubscribers(options.outboxFile, logger),
    lookupRetryMs,
    logger,
  });
  const subscriptions = new Subscriptions({
    subscribers: options.subscribers,
    baseUrl,
    tokens,
    confirmations: notifier,
    policy,
    limits: options.limits,
    confirmTtlMs: options.confirmTtlMs,
    logger,
  });

  const router = publicRouter(source, {
    baseUrl,
    operatorToken: options.operatorToken,
    subscriptions,
    subscribers: options.subscribers,
    logger,
  }) as Publishing;

  /** Unconfirmed subscribers past their time are removed by this timer: FerretDB has no TTL indexes. */
  const sweeper = repeatEvery(
    options.sweepIntervalMs ?? subscriptions.defaultSweepIntervalMs(),
    async () => {
      const removed = await subscriptions.removeExpired();
      if (removed > 0) logger?.info('unconfirmed status subscribers expired', { count: removed });
    },
    {
      onError: (error) => logger?.debug('unconfirmed status subscribers could not be swept now', { error: (error as Error).message }),
    },
  );

  router.idle = () => notifier.idle();
  router.stop = () => notifier.stop(() => sweeper.stop());
  return router;
}
