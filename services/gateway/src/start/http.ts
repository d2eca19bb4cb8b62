import express from 'express';
import { SecretBox } from '@postbus/crypto';
import { pingDb } from '@postbus/db';
import {
  auditQueries,
  closeServer,
  healthRouter,
  internalApiSecret,
  internalTokenVerifier,
  InternalTokens,
  listen,
  metricsRouter,
  notFoundHandler,
  problemHandler,
  requestId,
  type Teardown,
} from '@postbus/http';
import type { Logger } from '@postbus/logger';
import { DnsLookup } from '../clients/dns-lookup';
import { ErasureClient } from '../clients/erasure-client';
import { MailerClient } from '../clients/mailer-client';
import { PaymentsClient } from '../clients/payments-client';
import { UsersClient } from '../clients/users-client';
import { WebhooksClient } from '../clients/webhooks-client';
import { CommandSender } from '../clients/command-sender';
import type { GatewayConfig } from '../config';
import type { DomainKind } from '../domain/ports/domains';
import type { SenderDomainState } from '../domain/sender-address';
import { Sessions } from '../domain/sessions';
import { adminPanelRouter } from '../http/admin-panel';
import { API_VERSION, apiRoutes } from '../http/api-routes';
import { authenticate } from '../http/auth';
import { bodyBudget, jsonBodies, messagesOf } from '../http/body';
import { docsRouter } from '../http/docs';
import { edgeRouter, trackingTokens } from '../http/edge';
import { emailFrameRouter } from '../http/email-frame';
import { templatePreviewFrameRouter } from '../http/template-preview-frame';
import { methodNotAllowed } from '../http/method-not-allowed';
import { requestMetrics } from '../http/metrics';
import { compatibleApiDocument, openApiDocument } from '../http/openapi';
import { ProjectAccess } from '../http/project-access';
import { AuthFailureLimit, edgeRateLimit, messageRateLimit, rateLimit } from '../http/rate-limit';
import { submissionRelay } from '../http/submission-relay';
import { apiRouter, type RouteSpec } from '../http/route';
import { compatibleApiRouter, type CompatibleApi } from '../http/compat';
import { postmarkApi } from '../http/compat/postmark.routes';
import { resendApi } from '../http/compat/resend.routes';
import { sendSchemaChecks } from '../http/send-checks';
import { MessageReads } from '../domain/message-reads';
import { Sends } from '../domain/sends';
import { challengeBrowsersWithBearer } from '../http/session-cookie';
import { IDEMPOTENCY_RETENTION_MS } from './background';
import type { Consumers } from './consumers';
import type { Infrastructure } from './infrastructure';
import type { Stores } from './stores';

/** The gateway's listeners. */
export interface Served {
  port: number;
  /** The internal listener's port (/metrics), on INTERNAL_HOST. */
  internalPort: number;
  /** The public express application (tests walk its registered routes). */
  app: express.Express;
}

/**
 * Serves the public API on every interface, and what only the operator's side may see (/metrics)
 * on a second listener on INTERNAL_HOST. Both close together on stop.
 */
export async function serveHttp(
  config: GatewayConfig,
  logger: Logger,
  infrastructure: Infrastructure,
  stores: Stores,
  consumers: Consumers,
  teardown: Teardown,
): Promise<Served> {
  const app = publicApp(config, logger, infrastructure, stores, consumers);
  const internalApp = express();
  internalApp.disable('x-powered-by');
  internalApp.use(metricsRouter(infrastructure.registry));
  internalApp.use(notFoundHandler);
  internalApp.use(problemHandler(logger));
  const internal = await listen(internalApp, config.INTERNAL_PORT, config.INTERNAL_HOST);
  const { server, port } = await listen(app, config.PORT, '0.0.0.0').catch(async (error: unknown) => {
    await closeServer(internal.server);
    throw error;
  });
  teardown.add(() => Promise.all([closeServer(server), closeServer(internal.server)]));
  return { port, internalPort: internal.port, app };
}

/** The public application: /v1 (the API), the admin panel, the tracking edge (/t), health and docs. */
function publicApp(
  config: GatewayConfig,
  logger: Logger,
  infrastructure: Infrastructure,
  stores: Stores,
  consumers: Consumers,
): express.Express {
  const { registry, bus, db } = infrastructure;
  const { keyCheck, counters } = consumers;
  const access = new ProjectAccess(stores.projects, config.AUTH_CACHE_TTL_MS);
  const internalSecret = internalApiSecret(config.INTERNAL_API_SECRET, logger);
  const internalTokens = new InternalTokens(internalSecret, 'gateway');
  const sessions = new Sessions(config.SESSION_SECRET || undefined, config.SESSION_TTL_SECONDS);
  if (!config.SESSION_SECRET)
    logger.warn('SESSION_SECRET is not set: admin sessions are signed with a random key and end with this process');
  if (!config.SECRETS_KEY) logger.warn('SECRETS_KEY is not set: DKIM keys are sealed with a random key that ends with this process');
  const mailerApi = new MailerClient(config.MAILER_URL, internalTokens);
  const commands = new CommandSender(bus.publisher);
  const core: Core = {
    sends: new Sends({
      catalog: consumers.triggerCatalog,
      commands,
      storeAttachments: (projectId, messageId, files) => mailerApi.storeAttachments(projectId, messageId, files),
      ...sendSchemaChecks,
    }),
    reads: new MessageReads(mailerApi, consumers.accepted),
  };
  const routes = routeTable(config, stores, consumers, { access, internalTokens, sessions, mailerApi, commands, core });
  const openApi = openApiDocument(routes, API_VERSION);
  const compatible = compatibleApis(core, mailerApi, stores);

  const publicOrigin = config.PUBLIC_BASE_URL ? new URL(config.PUBLIC_BASE_URL).origin : undefined;
  if (publicOrigin?.startsWith('https:') && !config.TRUST_PROXY)
    logger.warn(
      "PUBLIC_BASE_URL is https but TRUST_PROXY is empty: requests through the TLS proxy look like http, so the admin session cookie is neither Secure nor __Host-, and limits count the proxy's address",
    );
  const authFailures = new AuthFailureLimit(counters, config.AUTH_FAILURE_LIMIT_PER_MINUTE);
  const auth = authenticate(keyCheck, sessions, authFailures, { publicOrigin, ownsProject: access.owns });
  const limit = rateLimit(counters, config.RATE_LIMIT_PER_SECOND);
  const bodies = bodyBudget(config.BODY_BYTES_IN_FLIGHT_PER_CLIENT);
  const observe = [requestMetrics(registry), ...(config.QUERY_AUDIT !== 'off' ? [auditQueries(config.QUERY_AUDIT)] : [])];
  const routeDeps = { assertProject: access.assert, idempotency: stores.idempotency, idempotencyRetentionMs: IDEMPOTENCY_RETENTION_MS };
  const app = express();
  app.disable('x-powered-by');
  if (config.TRUST_PROXY) app.set('trust proxy', /^\d+$/.test(config.TRUST_PROXY) ? Number(config.TRUST_PROXY) : config.TRUST_PROXY);
  app.set('etag', false);
  app.use(requestId);
  app.get('/v1/openapi.json', (_req, res) => {
    res.json(openApi);
  });
  for (const api of compatible) {
    const document = compatibleApiDocument(api, API_VERSION);
    app.get(`/v1/openapi/${api.name}.json`, (_req, res) => {
      res.json(document);
    });
  }
  // The API first, under its prefix: the hot path passes no other router.
  const v1 = express.Router();
  v1.use(...observe);
  v1.use(submissionRelay(internalTokenVerifier({ secret: internalSecret, audience: 'gateway', issuer: 'submission' })));
  v1.use(auth);
  v1.use(limit);
  v1.use(bodies);
  v1.use(jsonBodies(config.BODY_LIMIT));
  v1.use(messageRateLimit(counters, config.MESSAGE_RATE_LIMIT_PER_SECOND, messagesOf));
  v1.use(apiRouter(routes, routeDeps, '/v1'));
  v1.use(methodNotAllowed(routes, '/v1'));
  v1.use(challengeBrowsersWithBearer);
  app.use('/v1', v1);
  // Postmark's and Resend's APIs at the root, as their SDKs address them: each only answers its own paths.
  for (const api of compatible)
    app.use(
      compatibleApiRouter(api, {
        authenticate: (tokenHeader) =>
          authenticate(keyCheck, sessions, authFailures, {
            publicOrigin,
            ownsProject: access.owns,
            ...(tokenHeader ? { tokenHeader } : {}),
          }),
        limits: [limit, bodies],
        jsonBodies: (sends) => jsonBodies(config.BODY_LIMIT, sends),
        messageRateLimit: (count) => messageRateLimit(counters, config.MESSAGE_RATE_LIMIT_PER_SECOND, count),
        observe,
        routeDeps,
        logger,
      }),
    );
  // The admin panel: a static bundle on this origin, calling /v1 like any client; an email it shows,
  // and the template editor's preview, are framed from paths of their own, under a policy of their own.
  app.use(emailFrameRouter({ guards: [auth, limit], assertProject: access.assert, mailerApi, logger }));
  app.use(
    templatePreviewFrameRouter({
      guards: [auth, limit, bodies],
      assertProject: access.assert,
      templates: stores.templates,
      layouts: stores.layouts,
      bodyLimit: config.BODY_LIMIT,
      logger,
    }),
  );
  app.use(adminPanelRouter(logger));
  // The public edge (/t/*): no credentials, no JSON body parser; the signed token is the only authority.
  app.use('/t', edgeRateLimit(counters, config.EDGE_RATE_LIMIT_PER_MINUTE));
  app.use(edgeRouter({ tokens: trackingTokens(config.TRACKING_SECRET, logger), publisher: bus.publisher, logger }));
  app.use(healthRouter('gateway', { database: () => pingDb(db), bus: () => bus.publisher.healthy() }));
  app.use(docsRouter());
  app.use(notFoundHandler);
  app.use(problemHandler(logger, config.BODY_LIMIT));
  return app;
}

/** Every /v1 operation, given what it works with: the stores, the domain objects, the core, the bus's commands and the other services' internal APIs. */
function routeTable(
  config: GatewayConfig,
  { projects, domains, templates, layouts, emails }: Stores,
  { keyAdmin }: Consumers,
  shared: {
    access: ProjectAccess;
    internalTokens: InternalTokens;
    sessions: Sessions;
    mailerApi: MailerClient;
    commands: CommandSender;
    core: Core;
  },
): RouteSpec[] {
  const { access, internalTokens, sessions, mailerApi, commands, core } = shared;
  const usersApi = new UsersClient(config.USERS_URL, internalTokens);
  const senderDomainState = async (clientId: string, kind: DomainKind, id: string): Promise<SenderDomainState | null> => {
    const found = await domains.get(clientId, kind, id);
    return found ? { id: String(found._id), domain: found.domain, status: found.status } : null;
  };
  return apiRoutes({
    sessions,
    keyAdmin,
    ownsProject: access.owns,
    domains: {
      domains,
      trackingHost: config.TRACKING_HOST,
      dns: new DnsLookup(config.DNS_SERVERS ? config.DNS_SERVERS.split(',') : []),
      secrets: new SecretBox(config.SECRETS_KEY || undefined),
      spfInclude: config.SPF_INCLUDE,
      inboundMxHost: config.INBOUND_MX_HOST,
    },
    projects: { repository: projects, onChange: access.forget, domainOf: senderDomainState },
    templates: { templates, layouts },
    emails: {
      emails,
      templates,
      sends: core.sends,
      senderDomainOf: async (clientId, projectId) => {
        const project = await projects.get(clientId, projectId);
        return project?.sender_domain_id ? senderDomainState(clientId, 'sender', project.sender_domain_id) : null;
      },
    },
    users: { commands, usersApi },
    messages: { mailerApi, reads: core.reads },
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
}

/** The accept path of every send and the one read of a message: what /v1 and the compatible APIs share. */
interface Core {
  sends: Sends;
  reads: MessageReads;
}

/** The compatible APIs the gateway speaks at its root, over the same core as /v1. */
function compatibleApis(core: Core, mailerApi: MailerClient, { emails, projects }: Stores): CompatibleApi[] {
  return [
    postmarkApi({
      sends: core.sends,
      reads: core.reads,
      suppressedAmong: (projectId, addresses) => mailerApi.suppressedAmong(projectId, addresses),
      emails,
      projects,
    }),
    resendApi({
      sends: core.sends,
      reads: core.reads,
      reschedule: (projectId, messageId, sendAt) => mailerApi.rescheduleMessage(projectId, messageId, sendAt),
    }),
  ];
}
