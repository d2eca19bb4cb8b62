import type { RequestHandler } from 'express';
import { Histogram, type Registry } from 'prom-client';

/** Request durations by method, route pattern (never the raw path, which holds ids) and status. */
export function requestMetrics(registry: Registry): RequestHandler {
  const histogram = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'HTTP request duration',
    labelNames: ['method', 'route', 'status'],
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registers: [registry],
  });
  return (req, res, next) => {
    const end = histogram.startTimer();
    res.on('finish', () => {
      const route = (req.route as { path?: string } | undefined)?.path;
      end({ method: req.method, route: route ? `${req.baseUrl}${route}` : 'unmatched', status: res.statusCode });
    });
    next();
  };
}
