import { randomBytes } from 'node:crypto';
import express from 'express';
import { Bus, busOptions } from '@postbus/bus';
import { ConsumerGroups, Topics } from '@postbus/contracts';
import { connectDb, pingDb } from '@postbus/db';
import {
  closeServer,
  createMetricsRegistry,
  every,
  healthRouter,
  internalApiSecret,
  InternalTokens,
  listen,
  metricsRouter,
  notFoundHandler,
  problemHandler,
  requestId,
  auditQueries,
} from '@postbus/http';
import type { Logger } from '@postbus/logger';
import { engineOptionsFrom, TemplateEngine } from '@postbus/templates';
import { AcceptedMessages } from './domain/accepted-messages';
import { CatalogFeed } from './domain/catalog-feed';
import { TriggerCatalog } from './domain/trigger-catalog';
import { CommandSender } from './clients/command-sender';
import type { GatewayConfig } from './config';
import { adminPanelRouter } from './http/admin-panel';
import { emailFrameRouter } from './http/email-frame';
import { authenticate } from './http/auth';
import { challengeBrowsersWithBearer } from './http/session-cookie';
import { bodyBudget, jsonBodies, messagesOf } from './http/body';
import { docsRouter } from './http/docs';
import { requestMetrics } from './http/metrics';
import { openApiDocument } from './http/openapi';
import { API_VERSION, apiRoutes } from './http/api-routes';
import { ProjectAccess } from './http/project-access';
import { AuthFailureLimit, edgeRateLimit, messageRateLimit, rateLimit, SharedCounters } from './http/rate-limit';
import { KeyCheck } from './http/key-check';
import { instanceHandlers } from './handlers';
import { announceOnBus, KeyAdmin } from './domain/key-admin';
import { ApiKeyRepository } from './model/api-key.repository';
import { DomainRepository, type DomainKind } from './model/domain.repository';
import { TemplateRepository } from './model/template.repository';
import { EmailRepository } from './model/email.repository';
import { DnsLookup } from './clients/dns-lookup';
import { SecretBox } from '@postbus/crypto';
import { Sessions } from './domain/sessions';
import { apiRouter } from './http/route';
import { methodNotAllowed } from './http/method-not-allowed';
import type { SenderDomainState } from './domain/sender-address';
import { ClientRepository } from './model/client.repository';
import { IdempotencyRepository } from './model/idempotency.repository';
import { ProjectRepository } from './model/project.repository';
import { CatalogChanges } from './model/catalog-changes';
import { UsersClient } from './clients/users-client';
import { MailerClient } from './clients/mailer-client';
import { edgeRouter, trackingTokens } from './http/edge';
import { WebhooksClient } from './clients/webhooks-client';
import { PaymentsClient } from './clients/payments-client';
import { ErasureClient } from './clients/erasure-client';

export interface Gateway {
  port: number;
  /** The internal listener's port (/metrics), on INTERNAL_HOST. */
  internalPort: number;
  /** The public express application (tests walk its registered routes). */
  app: express.Express;
  stop(): Promise<void>;
}

const IDEMPOTENCY_RETENTION_MS = 24 * 60 * 60 * 1000;
const IDEMPOTENCY_PURGE_INTERVAL_MS = 10 * 60 * 1000;
/** Usage reports only matter for a minute; an hour leaves room to look at them. */
const USAGE_RETENTION_MS = 60 * 60 * 1000;
/**
 * How far another gateway instance's clock may run ahead of this one's: records it writes to a
 * lane carry its time, and a lookup of a trigger reads on past records that much newer than it.
 */
const OTHER_GATEWAYS_CLOCK_ALLOWANCE_MS = 10_000;

/** Starts the gateway: its database, the bus publisher and the public HTTP API. */
export async function start({ config, logger }: { config: GatewayConfig; logger: Logger }): Promise<Gateway> {
  const db = await connectDb({ url: config.MONGO_URL, dbName: config.GATEWAY_DB_NAME, logger });
  const registry = createMetricsRegistry('gateway');
  const bus = new Bus({
    ...busOptions(config),
    service: 'postbus/gateway',
    logger,
    ackTimeoutMs: config.KAFKA_ACK_TIMEOUT_MS,
    metrics: registry,
  });
  await bus.ensureTopics([
    { topic: Topics.UserCommands },
    { topic: Topics.EmailCommands },
    { topic: Topics.EmailBulk },
    { topic: Topics.Catalog, compacted: true },
    { topic: Topics.TrackingEvents },
    { topic: Topics.PaymentCommands },
    { topic: Topics.ErasureCommands },
    { topic: Topics.Auth, compacted: true },
    { topic: Topics.GatewayUsage, retentionMs: USAGE_RETENTION_MS },
  ]);
  await bus.publisher.connect();
  const instance = `gw_${randomBytes(6).toString('hex')}`;
  // A message id from a 200 reads at once: until the mailer has read its trigger, from the bus.
  const triggers = await bus.startReader(`postbus-gateway-reader-${instance}`, [Topics.EmailCommands, Topics.EmailBulk]);
  const accepted = new AcceptedMessages({
    find: (lookup) => triggers.find(lookup),
    mailerHasRead: (lane, record) =>
      bus.groupHasRead(
        lane === Topics.EmailBulk ? ConsumerGroups.mailerBulk : ConsumerGroups.mailerTriggers,
        lane,
        record.partition,
        record.offset,
      ),
    windowMs: config.KAFKA_ACK_TIMEOUT_MS + OTHER_GATEWAYS_CLOCK_ALLOWANCE_MS,
    // The lanes keep triggers this long: an older id has nothing to find.
    maxAgeMs: busOptions(config).piiRetentionMs ?? Number.POSITIVE_INFINITY,
  });

  const catalogChanges = new CatalogChanges();
  const clients = new ClientRepository(db);
  const apiKeys = new ApiKeyRepository(db);
  const projects = new ProjectRepository(db, catalogChanges);
  const idempotency = new IdempotencyRepository(db);
  const domains = new DomainRepository(db, catalogChanges);
  const templateEngine = new TemplateEngine({
    ...engineOptionsFrom(config),
    onWorkerError: (error) => logger.warn('a template worker thread failed', { error: error.message }),
  });
  const templates = new TemplateRepository(db, catalogChanges, templateEngine);
  const emails = new EmailRepository(db, catalogChanges);
  await clients.init();
  await Promise.all([apiKeys.init(), projects.init(), idempotency.init(), domains.init(), templates.init(), emails.init()]);
  // The cache listens first: no trigger may resolve against a plan the change outdated while it is being published.
  const triggerCatalog = new TriggerCatalog({ projects, emails, domains, templates, ttlMs: config.CATALOG_CACHE_TTL_MS });
  catalogChanges.listen(triggerCatalog.forget);
  const catalogFeed = new CatalogFeed({
    publisher: bus.publisher,
    sources: [projects, domains, templates, emails],
    logger,
    resyncIntervalMs: config.CATALOG_RESYNC_INTERVAL_MS,
  });
  catalogChanges.listen((change) => catalogFeed.changed(change));
  await catalogFeed.start();

  const access = new ProjectAccess(projects, config.AUTH_CACHE_TTL_MS);
  const keyCheck = new KeyCheck(apiKeys, config.AUTH_CACHE_TTL_MS, logger);
  const keyAdmin = new KeyAdmin(apiKeys, async (revoked) => {
    keyCheck.revoked(revoked.keyId);
    await announceOnBus(bus.publisher)(revoked).catch((error: unknown) => {
      // Stored already: the other instances' key caches expire within a second anyway.
      logger.warn('announcing a key revocation failed', { keyId: revoked.keyId, error: (error as Error).message });
    });
  });
  const counters = new SharedCounters({
    instance,
    publish: (report) => bus.publisher.publish(Topics.GatewayUsage, 'gateway.usage', instance, report).then(() => undefined),
    shareEveryMs: config.RATE_LIMIT_SHARE_MS,
    logger,
  });
  // Every instance hears every revocation and every other instance's counts: a group of its own, from now on.
  await bus.consume({
    groupId: `postbus-gateway-${instance}`,
    fromBeginning: false,
    partitionsConsumedConcurrently: config.KAFKA_TOPIC_PARTITIONS * 2,
    handlers: instanceHandlers(keyCheck, counters),
  });
  counters.start();
  const commands = new CommandSender(bus.publisher);
  const internalTokens = new InternalTokens(internalApiSecret(config.INTERNAL_API_SECRET, logger), 'gateway');
  const sessions = new Sessions(config.SESSION_SECRET || undefined, config.SESSION_TTL_SECONDS);
  if (!config.SESSION_SECRET)
    logger.warn('SESSION_SECRET is not set: admin sessions are signed with a random key and end with this process');
  if (!config.SECRETS_KEY) logger.warn('SECRETS_KEY is not set: DKIM keys are sealed with a random key that ends with this process');
  const usersApi = new UsersClient(config.USERS_URL, internalTokens);
  const mailerApi = new MailerClient(config.MAILER_URL, internalTokens);
  const senderDomainState = async (clientId: string, kind: DomainKind, id: string): Promise<SenderDomainState | null> => {
    const found = await domains.get(clientId, kind, id);
    return found ? { id: String(found._id), domain: found.domain, status: found.status } : null;
  };
  const routes = apiRoutes({
    sessions,
    keyAdmin,
    domains: {
      domains,
      trackingHost: config.TRACKING_HOST,
      dns: new DnsLookup(config.DNS_SERVERS ? config.DNS_SERVERS.split(',') : []),
      secrets: new SecretBox(config.SECRETS_KEY || undefined),
      spfInclude: config.SPF_INCLUDE,
      inboundMxHost: config.INBOUND_MX_HOST,
    },
    projects: { repository: projects, onChange: access.forget, domainOf: senderDomainState },
    templates,
    emails: {
      emails,
      templates,
      catalog: triggerCatalog,
      commands,
      storeAttachments: (projectId, messageId, files) => mailerApi.storeAttachments(projectId, messageId, files),
      senderDomainOf: async (clientId, projectId) => {
        const project = await projects.get(clientId, projectId);
        return project?.sender_domain_id ? senderDomainState(clientId, 'sender', project.sender_domain_id) : null;
      },
    },
    users: { commands, usersApi },
    messages: { mailerApi, accepted },
    suppressions: { commands, mailerApi },
    webhooks: { webhooksApi: new WebhooksClient(config.WEBHOOKS_URL, internalTokens), assertProject: access.assert },
    payments: { commands, paymentsApi: new PaymentsClient(config.PAYMENTS_URL, internalTokens) },
    erasure: {
      commands,
      erasureApi: new ErasureClient(config.ERASURE_URL, internalTokens),
      projectIdsOf: async (clientId) => (await projects.list(clientId, 10_000)).map((p) => p.id),
      emailOfUser: async (projectId, userId) => (await usersApi.byUserId(projectId, userId))?.email ?? null,
    },
  });
  const openApi = openApiDocument(routes, API_VERSION);

  const publicOrigin = config.PUBLIC_BASE_URL ? new URL(config.PUBLIC_BASE_URL).origin : undefined;
  if (publicOrigin?.startsWith('https:') && !config.TRUST_PROXY)
    logger.warn(
      "PUBLIC_BASE_URL is https but TRUST_PROXY is empty: requests through the TLS proxy look like http, so the admin session cookie is neither Secure nor __Host-, and limits count the proxy's address",
    );
  const auth = authenticate(keyCheck, sessions, new AuthFailureLimit(counters, config.AUTH_FAILURE_LIMIT_PER_MINUTE), { publicOrigin });
  const limit = rateLimit(counters, config.RATE_LIMIT_PER_SECOND);
  const app = express();
  app.disable('x-powered-by');
  if (config.TRUST_PROXY) app.set('trust proxy', /^\d+$/.test(config.TRUST_PROXY) ? Number(config.TRUST_PROXY) : config.TRUST_PROXY);
  app.set('etag', false);
  app.use(requestId);
  app.get('/v1/openapi.json', (_req, res) => {
    res.json(openApi);
  });
  // The API first, under its prefix: the hot path passes no other router.
  const v1 = express.Router();
  v1.use(requestMetrics(registry));
  if (config.QUERY_AUDIT !== 'off') v1.use(auditQueries(config.QUERY_AUDIT));
  v1.use(auth);
  v1.use(limit);
  v1.use(bodyBudget(config.BODY_BYTES_IN_FLIGHT_PER_CLIENT));
  v1.use(jsonBodies(config.BODY_LIMIT));
  v1.use(messageRateLimit(counters, config.MESSAGE_RATE_LIMIT_PER_SECOND, messagesOf));
  v1.use(apiRouter(routes, { assertProject: access.assert, idempotency, idempotencyRetentionMs: IDEMPOTENCY_RETENTION_MS }, '/v1'));
  v1.use(methodNotAllowed(routes, '/v1'));
  v1.use(challengeBrowsersWithBearer);
  app.use('/v1', v1);
  // The admin panel: a static bundle on this origin, calling /v1 like any client; an email it shows
  // is framed from a path of its own, under a policy of its own.
  app.use(emailFrameRouter({ guards: [auth, limit], assertProject: access.assert, mailerApi, logger }));
  app.use(adminPanelRouter(logger));
  // The public edge (/t/*): no credentials, no JSON body parser; the signed token is the only authority.
  app.use('/t', edgeRateLimit(counters, config.EDGE_RATE_LIMIT_PER_MINUTE));
  app.use(edgeRouter({ tokens: trackingTokens(config.TRACKING_SECRET, logger), publisher: bus.publisher, logger }));
  app.use(healthRouter('gateway', { database: () => pingDb(db), bus: () => bus.publisher.healthy() }));
  app.use(docsRouter());
  app.use(notFoundHandler);
  app.use(problemHandler(logger, config.BODY_LIMIT));

  const idempotencyPurge = every(
    IDEMPOTENCY_PURGE_INTERVAL_MS,
    () => idempotency.purgeOlderThan(new Date(Date.now() - IDEMPOTENCY_RETENTION_MS)),
    { onError: (error) => logger.warn('purging idempotency records failed', { error }) },
  );

  // The public API on every interface; what only the operator's side may see (/metrics) on a
  // second listener on INTERNAL_HOST.
  const internalApp = express();
  internalApp.disable('x-powered-by');
  internalApp.use(metricsRouter(registry));
  internalApp.use(notFoundHandler);
  internalApp.use(problemHandler(logger));
  const internal = await listen(internalApp, config.INTERNAL_PORT, config.INTERNAL_HOST);
  const { server, port } = await listen(app, config.PORT, '0.0.0.0').catch(async (error: unknown) => {
    await closeServer(internal.server);
    throw error;
  });
  logger.info('gateway started', { port, internalPort: internal.port, internalHost: config.INTERNAL_HOST });
  return {
    port,
    internalPort: internal.port,
    app,
    async stop() {
      await idempotencyPurge.stop();
      counters.stop();
      catalogFeed.stop();
      await Promise.all([closeServer(server), closeServer(internal.server)]);
      await bus.close();
      await templateEngine.close();
      await db.close();
    },
  };
}
