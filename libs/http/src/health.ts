import express, { type Router } from 'express';
import { collectDefaultMetrics, Registry } from 'prom-client';

export type ReadinessCheck = () => Promise<boolean> | boolean;

/** /healthz (the process answers) and /readyz (its dependencies answer): open, for probes. */
export function healthRouter(service: string, checks: Record<string, ReadinessCheck>): Router {
  const router = express.Router();
  router.get('/healthz', (_req, res) => {
    res.json({ status: 'ok', service });
  });
  router.get('/readyz', async (_req, res) => {
    const results: Record<string, boolean> = {};
    await Promise.all(
      Object.entries(checks).map(async ([name, check]) => {
        results[name] = await Promise.resolve()
          .then(check)
          .catch(() => false);
      }),
    );
    const ready = Object.values(results).every(Boolean);
    res.status(ready ? 200 : 503).json({ status: ready ? 'ready' : 'not_ready', service, checks: results });
  });
  return router;
}

/** /metrics (Prometheus), served on the internal listener only (INTERNAL_HOST). */
export function metricsRouter(registry: Registry): Router {
  const router = express.Router();
  router.get('/metrics', async (_req, res) => {
    res.type(registry.contentType).send(await registry.metrics());
  });
  return router;
}

/** A metrics registry per process (never the global one), with Node's default metrics. */
export function createMetricsRegistry(service: string): Registry {
  const registry = new Registry();
  registry.setDefaultLabels({ service: service.replace(/-/g, '_') });
  collectDefaultMetrics({ register: registry });
  return registry;
}
