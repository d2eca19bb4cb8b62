/**
 * The webhook benchmark's baseline, forked by webhooks.bench.ts into a process of its own: the same `message.sent`
 * webhooks the dispatcher delivers (same body, same Standard Webhooks signature with the endpoint's secret, same
 * headers) POSTed straight to the same receiver with node:http, `concurrency` requests in flight over keep-alive
 * connections, as the dispatcher's worker has WEBHOOK_CONCURRENCY attempts in flight.
 *
 * Protocol (IPC): the argument is a JSON WebhookDirectOptions; the child POSTs `warmup` webhooks and answers
 * {type: 'ready'}; on {type: 'go'} it POSTs `count` webhooks and answers {type: 'result', ...}, then exits.
 */
import { createHash } from 'node:crypto';
import http from 'node:http';
import { latencyOf, perSecond, type Latency } from './stats';
import { nowMs, sentEvent, webhookBody, webhookHeaders } from './webhook-events';

export interface WebhookDirectOptions {
  url: string;
  /** The endpoint's secret (whsec_...), as the dispatcher signs with it. */
  secret: string;
  projectId: string;
  /** Message ids are `<tag>_<n>`. */
  tag: string;
  warmup: number;
  count: number;
  concurrency: number;
}

export interface WebhookDirectResult {
  sent: number;
  failed: number;
  firstError: string | null;
  durationMs: number;
  /** 2xx answers a second, from the first request to the last answer. */
  rate: number;
  /** Request start → response end. */
  latencyMs: Latency;
  /** Epoch ms at which each request started, by n (0 when it failed). */
  startedAt: number[];
  cpuMs: { user: number; system: number };
}

export type WebhookDirectMessage = { type: 'ready' } | ({ type: 'result' } & WebhookDirectResult) | { type: 'error'; message: string };

/** Like the dispatcher's delivery ids: `msg_` and 32 hex digits of a hash. */
const webhookIdOf = (tag: string, n: number) => `msg_${createHash('sha256').update(`${tag}\n${n}`).digest('hex').slice(0, 32)}`;

async function main(options: WebhookDirectOptions): Promise<void> {
  const send = (message: WebhookDirectMessage) =>
    new Promise<void>((resolve, reject) => process.send!(message, (error: Error | null) => (error ? reject(error) : resolve())));
  const agent = new http.Agent({ keepAlive: true, maxSockets: options.concurrency });
  const url = new URL(options.url);

  /** One POST as the dispatcher's sender makes it; resolves with the status code. */
  const post = (tag: string, n: number): Promise<number> =>
    new Promise((resolve, reject) => {
      const at = new Date();
      const payload = webhookBody(sentEvent(tag, options.projectId, n, at));
      const request = http.request(url, {
        method: 'POST',
        agent,
        headers: webhookHeaders(webhookIdOf(tag, n), payload, [options.secret], at),
        signal: AbortSignal.timeout(10_000),
      });
      request.on('response', (response) => {
        response.on('data', () => undefined);
        response.on('end', () => resolve(response.statusCode ?? 0));
        response.on('error', reject);
      });
      request.on('error', reject);
      request.end(payload);
    });

  const batch = async (tag: string, count: number) => {
    const latencies: number[] = [];
    const startedAt = new Array<number>(count).fill(0);
    let next = 0;
    let failed = 0;
    let firstError: string | null = null;
    const worker = async () => {
      while (next < count) {
        const n = next++;
        const start = nowMs();
        try {
          const status = await post(tag, n);
          if (status < 200 || status >= 300) throw new Error(`HTTP ${status}`);
          startedAt[n] = start;
          latencies.push(nowMs() - start);
        } catch (error) {
          failed++;
          firstError ??= error instanceof Error ? error.message : String(error);
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(options.concurrency, count) }, worker));
    return { latencies, startedAt, failed, firstError };
  };

  const warm = await batch(`${options.tag}-warmup`, options.warmup);
  if (warm.failed > 0) throw new Error(`${warm.failed} of ${options.warmup} warm-up webhooks failed: ${warm.firstError}`);
  const go = new Promise<void>((resolve) => process.once('message', () => resolve()));
  await send({ type: 'ready' });
  await go;

  const cpuBefore = process.cpuUsage();
  const started = nowMs();
  const run = await batch(options.tag, options.count);
  const durationMs = nowMs() - started;
  const cpu = process.cpuUsage(cpuBefore);
  agent.destroy();
  await send({
    type: 'result',
    sent: run.latencies.length,
    failed: run.failed,
    firstError: run.firstError,
    durationMs: Math.round(durationMs),
    rate: perSecond(run.latencies.length, durationMs),
    latencyMs: latencyOf(run.latencies),
    startedAt: run.startedAt,
    cpuMs: { user: Math.round(cpu.user / 1000), system: Math.round(cpu.system / 1000) },
  });
}

if (require.main === module) {
  if (!process.send) {
    console.error('webhook-direct.js is forked by webhooks.bench.js (it needs an IPC channel)');
    process.exit(2);
  }
  main(JSON.parse(process.argv[2] ?? '{}') as WebhookDirectOptions).then(
    () => process.disconnect(),
    (error: unknown) => {
      const message = error instanceof Error ? error.message : String(error);
      process.send!({ type: 'error', message } satisfies WebhookDirectMessage, () => process.exit(1));
    },
  );
}
