import type { Probe } from '../../domain/ports';
import { reason, verdict } from './probe';

interface ReadyzBody {
  status?: string;
  checks?: Record<string, boolean>;
}

/** A service's /readyz: ready is operational; not ready says which of its dependencies failed. */
export function readyzProbe(options: { componentId: string; service: string; url: string; intervalMs: number; timeoutMs: number }): Probe {
  return {
    name: `readyz ${options.service}`,
    componentIds: [options.componentId],
    intervalMs: options.intervalMs,
    async run() {
      const started = performance.now();
      try {
        const res = await fetch(`${options.url}/readyz`, { signal: AbortSignal.timeout(options.timeoutMs) });
        const latency = performance.now() - started;
        const body = (await res.json().catch(() => ({}))) as ReadyzBody;
        if (res.status === 200) return [verdict(options.componentId, 'operational', `${options.service} ready`, latency)];
        const failing = Object.entries(body.checks ?? {})
          .filter(([, ok]) => !ok)
          .map(([name]) => name);
        const why = failing.length > 0 ? `${failing.join(', ')} not ready` : `answered ${res.status}`;
        return [verdict(options.componentId, 'major_outage', `${options.service} not ready: ${why}`, latency)];
      } catch (error) {
        return [verdict(options.componentId, 'major_outage', `${options.service} unreachable: ${reason(error)}`)];
      }
    },
  };
}

/**
 * A page served by the gateway: its edge (tracking, unsubscribe) or the admin panel. Any answer
 * below 500 means the route is served (a tracking link with a bad token is refused, as it should be).
 */
export function pageProbe(options: {
  componentId: string;
  what: string;
  url: string;
  expectOk: boolean;
  intervalMs: number;
  timeoutMs: number;
}): Probe {
  return {
    name: options.what,
    componentIds: [options.componentId],
    intervalMs: options.intervalMs,
    async run() {
      const started = performance.now();
      try {
        const res = await fetch(options.url, { signal: AbortSignal.timeout(options.timeoutMs), redirect: 'manual' });
        await res.arrayBuffer().catch(() => undefined);
        const latency = performance.now() - started;
        const served = options.expectOk ? res.status < 400 : res.status < 500;
        return [verdict(options.componentId, served ? 'operational' : 'major_outage', `${options.what} answered ${res.status}`, latency)];
      } catch (error) {
        return [verdict(options.componentId, 'major_outage', `${options.what} unreachable: ${reason(error)}`)];
      }
    },
  };
}
