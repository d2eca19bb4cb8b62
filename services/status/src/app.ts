import { randomBytes } from 'node:crypto';
import type { Server } from 'node:http';
import express from 'express';
import { kafkaConnection } from '@postbus/bus';
import { topicName } from '@postbus/contracts';
import { SecretBox } from '@postbus/crypto';
import { closeServer, healthRouter, listen, notFoundHandler, parseAllowedHost, problemHandler, requestId } from '@postbus/http';
import type { Logger } from '@postbus/logger';
import { canarySettings, subscriptionLimits, type StatusConfig } from './config';
import { ComponentIds, componentDefinitions, SERVICE_DATABASES, type ServiceDatabase } from './domain/components';
import { StatusEngine, type Clock } from './engine/engine';
import { Monitor } from './engine/monitor';
import { Persistence } from './engine/persistence';
import { SnapshotFile } from './engine/snapshot-file';
import { operatorApi } from './http/operator-api';
import { publicRouter } from './http/public-router';
import { DeferredSubscriberStore } from './model/deferred-subscriber.repository';
import { canaryProbe } from './probes/canary';
import { pageProbe, readyzProbe } from './probes/http-probes';
import { kafkaProbe } from './probes/kafka-probe';
import { mongoProbe } from './probes/mongo-probe';
import type { Probe } from './probes/probe';
import { smtpProbe } from './probes/smtp-probe';
import { outboxPathFor } from './subscriptions/notifier';

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
  const publishing = publicRouter(engine, {
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
