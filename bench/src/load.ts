import autocannon from 'autocannon';
import { measureCpu, type CpuUsage } from './cpu';

export interface LoadOptions {
  /** Base URL of the target, e.g. http://127.0.0.1:8080 */
  url: string;
  path: string;
  /** Extra request headers (content-type is always application/json). */
  headers?: Record<string, string>;
  /** Builds the body of the n-th request of this run, so that each can be unique. */
  body: (n: number) => string;
  durationSec: number;
  connections: number;
  /**
   * Requests per second over all connections; unlimited (closed loop) when absent. autocannon lets each
   * connection send its quota for the second back to back, so a paced run still arrives in bursts.
   */
  overallRate?: number;
  /** Stops the run early (its promise then rejects with the reason). */
  signal: AbortSignal;
  /** Processes whose CPU use is measured during the run, by name. */
  watch: Record<string, number | undefined>;
}

/** The figures of one autocannon run; latencies in milliseconds. */
export interface LoadStats {
  durationSec: number;
  connections: number;
  targetRate: number | null;
  requests: number;
  /** Mean of the per-second samples of completed requests. */
  rps: number;
  latencyMs: { mean: number; p50: number; p90: number; p99: number; max: number };
  non2xx: number;
  errors: number;
  timeouts: number;
  /** 2xx answers whose body was not the gateway's `{"status":"accepted",...}`. */
  mismatches: number;
  statusCodes: Record<string, number>;
  /** Cores busy during the run, by process; null where /proc cannot be read. */
  cpu: CpuUsage | null;
}

// `errors` already counts the timeouts.
export const failuresOf = (stats: LoadStats): number => stats.non2xx + stats.errors + stats.mismatches;

const ACCEPTED = '"status":"accepted"';

export function runLoad(options: LoadOptions): Promise<LoadStats> {
  options.signal.throwIfAborted();
  let n = 0;
  return new Promise((resolve, reject) => {
    const cpu = measureCpu(options.watch);
    const instance = autocannon(
      {
        url: options.url,
        connections: options.connections,
        pipelining: 1,
        duration: options.durationSec,
        method: 'POST',
        headers: { 'content-type': 'application/json', ...options.headers },
        requests: [
          {
            method: 'POST',
            path: options.path,
            setupRequest: (request) => ({ ...request, body: options.body(n++) }),
          },
        ],
        verifyBody: (body) => String(body).includes(ACCEPTED),
        ...(options.overallRate !== undefined
          ? {
              overallRate: options.overallRate,
              // autocannon "corrects" paced runs with an expected interval of ceil(1 / per-connection rate) = 1 ms,
              // which back-fills each answer of L ms with L - 1 fake samples; report what was measured instead.
              ignoreCoordinatedOmission: true,
            }
          : {}),
      },
      (error: unknown, result) => {
        options.signal.removeEventListener('abort', onAbort);
        if (options.signal.aborted) return reject(options.signal.reason as Error);
        if (error) return reject(error instanceof Error ? error : new Error(`autocannon failed: ${JSON.stringify(error)}`));
        resolve(summarise(result, options, cpu()));
      },
    );
    const onAbort = () => instance.stop();
    options.signal.addEventListener('abort', onAbort, { once: true });
  });
}

function summarise(result: autocannon.Result, options: LoadOptions, cpu: CpuUsage | null): LoadStats {
  const statusCodes: Record<string, number> = {};
  for (const [code, { count }] of Object.entries(result.statusCodeStats ?? {})) statusCodes[code] = count ?? 0;
  const round = (value: number) => Math.round(value * 100) / 100;
  return {
    durationSec: result.duration,
    connections: options.connections,
    targetRate: options.overallRate ?? null,
    requests: result.requests.total,
    rps: round(result.requests.mean),
    latencyMs: {
      mean: round(result.latency.mean),
      p50: result.latency.p50,
      p90: result.latency.p90,
      p99: result.latency.p99,
      max: result.latency.max,
    },
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
    mismatches: result.mismatches,
    statusCodes,
    cpu,
  };
}
