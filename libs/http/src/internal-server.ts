import type { Server } from 'node:http';
import express, { type RequestHandler } from 'express';
import type { Registry } from 'prom-client';
import type { QueryAuditMode } from '@postbus/db';
import type { Logger } from '@postbus/logger';
import { auditQueries } from './query-audit';
import { createMetricsRegistry, healthRouter, metricsRouter, type ReadinessCheck } from './health';
import { internalApiSecret, requireInternalToken } from './internal-auth';
import { notFoundHandler, problemHandler } from './problems';
import { requestId } from './request-id';
import { listen } from './server';

/**
 * The HTTP server of a service behind the gateway, listening on INTERNAL_HOST only: /healthz,
 * /readyz and /metrics open to probes and scrapers; every /internal route behind the shared-secret
 * token (it trusts the ids in its path, so only a caller holding the secret may use it), then the
 * service's own handlers; problem+json for everything else.
 */
export function startInternalServer(options: {
  /** The service's name: its health answers and the token's audience. */
  service: string;
  config: { PORT: number; INTERNAL_HOST: string; INTERNAL_API_SECRET: string; QUERY_AUDIT: QueryAuditMode };
  checks: Record<string, ReadinessCheck>;
  /** Mounted after the token check, in order. */
  handlers: RequestHandler[];
  logger: Logger;
  /** The registry /metrics serves (the bus's consumers report there); a new one with Node's defaults when absent. */
  metrics?: Registry;
}): Promise<{ server: Server; port: number }> {
  const { service, config, logger } = options;
  const app = express();
  app.disable('x-powered-by');
  app.use(requestId);
  app.use(auditQueries(config.QUERY_AUDIT));
  app.use(healthRouter(service, options.checks));
  app.use(metricsRouter(options.metrics ?? createMetricsRegistry(service)));
  app.use('/internal', requireInternalToken({ secret: internalApiSecret(config.INTERNAL_API_SECRET, logger), audience: service }));
  for (const handler of options.handlers) app.use(handler);
  app.use(notFoundHandler);
  app.use(problemHandler(logger));
  return listen(app, config.PORT, config.INTERNAL_HOST);
}
