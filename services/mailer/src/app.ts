import { createHmac, randomBytes } from 'node:crypto';
import { Bus, busOptions } from '@postbus/bus';
import { Topics, type MessageStatus } from '@postbus/contracts';
import { ReturnPathTokens, SecretBox, TrackingTokens } from '@postbus/crypto';
import { connectDb, pingDb } from '@postbus/db';
import { closeServer, createMetricsRegistry, startInternalServer } from '@postbus/http';
import type { Logger } from '@postbus/logger';
import { engineOptionsFrom, TemplateEngine } from '@postbus/templates';
import type { MailerConfig } from './config';
import { SmtpRelay } from './clients/smtp-relay';
import { Deliverer } from './domain/delivery/deliverer';
import { Engagements } from './domain/engagements';
import { Feedback } from './domain/feedback';
import { MailerErasure } from './domain/erasure-participant';
import { MessageLog } from './domain/message-log';
import { MessageRetention } from './domain/message-retention';
import { RetryWorker } from './domain/retry-worker';
import { SendPathPriority } from './domain/send-path-priority';
import { SuppressionList } from './domain/suppression-list';
import { Timeline } from './domain/timeline';
import { TriggerDelivery } from './domain/trigger-delivery';
import { catalogHandlers, emailCommandHandlers, feedbackHandlers, peopleHandlers } from './handlers';
import { internalApi } from './http/internal-api';
import { CatalogProjection } from './model/catalog.repository';
import { ErasuresDone } from './model/erasure.repository';
import { MessageLists } from './model/message-list.repository';
import { MessageStore } from './model/message.repository';
import { RetryQueue } from './model/retry.repository';
import { StatusRollups } from './model/rollup.repository';
import { Suppressions } from './model/suppression.repository';

export interface MailerService {
  port: number;
  stop(): Promise<void>;
}

/** Starts the mailer: its database, the projections it keeps, the trigger consumer, the retry worker and its internal API. */
export async function start({ config, logger }: { config: MailerConfig; logger: Logger }): Promise<MailerService> {
  if (!config.SECRETS_KEY) logger.warn('SECRETS_KEY is not set: DKIM keys sealed by the gateway cannot be opened (development only)');
  if (!config.TRACKING_SECRET)
    logger.warn('TRACKING_SECRET is not set: tracking links are signed with a random key the gateway does not know');
  const db = await connectDb({ url: config.MONGO_URL, dbName: config.MAILER_DB_NAME });
  const catalog = new CatalogProjection(db);
  const store = new MessageStore(db);
  if (!config.ERASURE_AUDIT_KEY)
    logger.warn('ERASURE_AUDIT_KEY is not set: the suppressions an erased address keeps last only as long as this process');
  const auditKey = config.ERASURE_AUDIT_KEY || randomBytes(32).toString('hex');
  const suppressions = new Suppressions(db, (email) => createHmac('sha256', auditKey).update(email).digest('hex'));
  const retries = new RetryQueue(db);
  const erasuresDone = new ErasuresDone(db);
  const lists = new MessageLists(db);
  const rollups = new StatusRollups(db);
  await Promise.all([catalog.init(), store.init(), suppressions.init(), retries.init(), erasuresDone.init(), lists.init(), rollups.init()]);
  rollups.start();
  const erasure = new MailerErasure({ store, lists, suppressions, retries, done: erasuresDone });

  const metrics = createMetricsRegistry('mailer');

  const bus = new Bus({ ...busOptions(config), service: 'postbus/mailer', logger, metrics });
  await bus.ensureTopics([
    { topic: Topics.EmailCommands },
    { topic: Topics.Catalog, compacted: true },
    { topic: Topics.UserEvents },
    { topic: Topics.UserCommands },
    { topic: Topics.TrackingEvents },
    { topic: Topics.EmailEvents },
    { topic: Topics.ErasureEvents },
    { topic: Topics.Feedback },
  ]);
  await bus.publisher.connect();

  const relay = new SmtpRelay(config.SMTP_URL, config.SMTP_POOL_CONNECTIONS);
  const templates = new TemplateEngine({
    ...engineOptionsFrom(config),
    onWorkerError: (error) => logger.warn('a template worker thread failed', { error: error.message }),
  });
  const trackingSecret = config.TRACKING_SECRET || randomBytes(32).toString('hex');
  const deliverer = new Deliverer({
    catalog,
    secrets: new SecretBox(config.SECRETS_KEY || undefined),
    tokens: new TrackingTokens(trackingSecret, { ttlMs: config.TRACKING_TOKEN_TTL_DAYS * 24 * 60 * 60 * 1000 }),
    returnPath: new ReturnPathTokens(trackingSecret),
    relay,
    suppressionsOf: (projectId, addresses) => Promise.all(addresses.map((email) => suppressions.reasonFor({ projectId, email }))),
    publicBaseUrl: config.PUBLIC_BASE_URL,
    catalogWaitMs: config.MAILER_CATALOG_WAIT_MS,
    templates,
    runPatienceMs: config.TEMPLATE_RUN_PATIENCE_MS,
  });
  const policy = { maxAttempts: config.MAILER_MAX_ATTEMPTS, baseMs: config.MAILER_RETRY_BASE_MS, maxMs: config.MAILER_RETRY_MAX_MS };
  const timeline = new Timeline(
    store,
    bus.publisher,
    retries,
    policy,
    async (message, event) => {
      // A message counts (and is listed) under a status once: deferred on its first deferral only.
      if (event.event === 'deferred' && event.attempt !== 1) return;
      const status = event.event as MessageStatus;
      rollups.count(message.projectId, status, event.at);
      await lists.reached(message, status, event.at);
    },
    (error, count) => logger.warn('could not keep the rendered emails of some messages', { error, count }),
  );

  const suppressionList = new SuppressionList(suppressions, bus.publisher);
  const sendPath = new SendPathPriority({ whileSendingPerSecond: config.FEEDBACK_RATE_WHILE_SENDING });
  const engagements = new Engagements({ store, timeline, suppressionList, suppressions, publisher: bus.publisher });
  // Projections first, so triggers find the catalog; they are separate groups so a burst of triggers never delays them.
  await bus.consume({
    groupId: 'postbus-mailer-projections',
    handlers: [...catalogHandlers(catalog), ...peopleHandlers(suppressionList, erasure, engagements, bus.publisher)],
  });
  // Delivery reports in a group of their own: while they wait for the send path, the catalog and opens do not.
  // Keyed by message, so partitions side by side keep each message's reports in order.
  await bus.consume({
    groupId: 'postbus-mailer-feedback',
    partitionsConsumedConcurrently: config.KAFKA_TOPIC_PARTITIONS,
    handlers: feedbackHandlers(
      new Feedback({
        store,
        timeline,
        suppressions,
        suppressionList,
        engagements,
        lists,
        rollups,
        softBounceLimit: config.SOFT_BOUNCE_LIMIT,
        sendPath,
      }),
    ),
  });
  await bus.consume({
    groupId: 'postbus-mailer-triggers',
    gatherFetches: 'send-path',
    handlers: emailCommandHandlers(
      new TriggerDelivery({ store, suppressions, retries, deliverer, timeline, lists, rollups }),
      sendPath,
      erasure,
      suppressionList,
    ),
    partitionsConsumedConcurrently: config.KAFKA_TOPIC_PARTITIONS,
    // A run is delivered side by side and committed as a whole: a few times the SMTP pool keeps
    // the relay busy without letting one run's slowest mail hold back hundreds of others.
    maxRunSize: config.SMTP_POOL_CONNECTIONS * 4,
  });
  const retryWorker = new RetryWorker({
    retries,
    store,
    suppressions,
    deliverer,
    timeline,
    logger,
    intervalMs: Math.max(50, Math.min(1_000, Math.floor(config.MAILER_RETRY_BASE_MS / 4))),
  });
  retryWorker.start();
  const retention = new MessageRetention({
    store,
    lists,
    logger,
    retentionDays: config.MESSAGE_RETENTION_DAYS,
    intervalMs: config.MESSAGE_RETENTION_INTERVAL_MS,
  });
  retention.start();

  const { server, port } = await startInternalServer({
    metrics,
    service: 'mailer',
    config,
    checks: { database: () => pingDb(db), bus: () => bus.publisher.healthy() },
    handlers: [internalApi(new MessageLog(store, lists), rollups, suppressions)],
    logger,
  });
  logger.info('mailer started', { port, host: config.INTERNAL_HOST });

  return {
    port,
    async stop() {
      await retryWorker.stop();
      await retention.stop();
      await closeServer(server);
      await bus.close();
      await rollups.stop();
      relay.close();
      await templates.close();
      await db.close();
    },
  };
}
