import { Agent, request } from 'node:http';
import autocannon from 'autocannon';
import { measureCpu, type CpuUsage } from './cpu';
import { paced } from './pacing';
import { latencyOf } from './stats';

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
   * Requests per second over all connections, evenly spaced (an open loop: runPacedLoad); unlimited
   * (closed loop, autocannon) when absent.
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

/** A closed loop through autocannon, or with `overallRate` an evenly paced open loop (runPacedLoad). */
export function runLoad(options: LoadOptions): Promise<LoadStats> {
  options.signal.throwIfAborted();
  if (options.overallRate !== undefined) return runPacedLoad({ ...options, overallRate: options.overallRate });
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

/**
 * `overallRate` requests a second, the n-th sent at start + n / rate whatever the answers to earlier
 * ones, over at most `connections` keep-alive sockets. autocannon's rate limit lets each connection
 * send its quota for the second back to back, so its "half peak" arrives as bursts of peak load;
 * this measures the latency of an even load. Latency counts from when a request was due, so time
 * spent waiting for a free socket is measured too (no coordinated omission).
 */
export async function runPacedLoad(options: LoadOptions & { overallRate: number }): Promise<LoadStats> {
  const { overallRate: rate, durationSec, connections } = options;
  const cpu = measureCpu(options.watch);
  const agent = new Agent({ keepAlive: true, maxSockets: connections, maxFreeSockets: connections });
  const target = new URL(options.url);
  const latencies: number[] = [];
  const statusCodes: Record<string, number> = {};
  let errors = 0;
  let mismatches = 0;
  const send = (n: number, dueAt: number) =>
    new Promise<void>((resolve) => {
      const body = options.body(n);
      const req = request(
        {
          agent,
          host: target.hostname,
          port: target.port,
          method: 'POST',
          path: options.path,
          headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), ...options.headers },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('end', () => {
            latencies.push(performance.now() - dueAt);
            const code = String(res.statusCode ?? 0);
            statusCodes[code] = (statusCodes[code] ?? 0) + 1;
            if (code.startsWith('2') && !Buffer.concat(chunks).toString('utf8').includes(ACCEPTED)) mismatches++;
            resolve();
          });
          res.on('error', () => {
            errors++;
            resolve();
          });
        },
      );
      req.on('error', () => {
        errors++;
        resolve();
      });
      req.end(body);
    });

  const start = performance.now();
  await paced(rate, Math.round(rate * durationSec), send, { signal: options.signal, now: () => performance.now() });
  const elapsedSec = (performance.now() - start) / 1000;
  agent.destroy();
  options.signal.throwIfAborted();
  const latency = latencyOf(latencies);
  const non2xx = Object.entries(statusCodes).reduce((sum, [code, count]) => sum + (code.startsWith('2') ? 0 : count), 0);
  return {
    durationSec: Math.round(elapsedSec * 100) / 100,
    connections,
    targetRate: rate,
    requests: latencies.length,
    rps: Math.round((latencies.length / elapsedSec) * 100) / 100,
    latencyMs: { mean: latency.mean, p50: latency.p50, p90: latency.p90, p99: latency.p99, max: latency.max },
    non2xx,
    errors,
    timeouts: 0,
    mismatches,
    statusCodes,
    cpu: cpu(),
  };
}
