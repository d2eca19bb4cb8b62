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
import { measure, readyThenGo, runBatch, runForked, sendToParent, type BatchFigures } from './direct-child';
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

/** 2xx answers a second, from the first request to the last answer; latencies from request start to response end. */
export interface WebhookDirectResult extends BatchFigures {
  /** Epoch ms at which each request started, by n (0 when it failed). */
  startedAt: number[];
}

export type WebhookDirectMessage = { type: 'ready' } | ({ type: 'result' } & WebhookDirectResult) | { type: 'error'; message: string };

/** Like the dispatcher's delivery ids: `msg_` and 32 hex digits of a hash. */
const webhookIdOf = (tag: string, n: number) => `msg_${createHash('sha256').update(`${tag}\n${n}`).digest('hex').slice(0, 32)}`;

async function main(options: WebhookDirectOptions): Promise<void> {
  const send = (message: WebhookDirectMessage) => sendToParent(message);
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

  const batch = (tag: string, count: number) =>
    runBatch(
      count,
      options.concurrency,
      async (n) => {
        const status = await post(tag, n);
        if (status < 200 || status >= 300) throw new Error(`HTTP ${status}`);
      },
      nowMs,
    );

  const warm = await batch(`${options.tag}-warmup`, options.warmup);
  if (warm.failed > 0) throw new Error(`${warm.failed} of ${options.warmup} warm-up webhooks failed: ${warm.firstError}`);
  await readyThenGo();
  const { batch: run, figures } = await measure(() => batch(options.tag, options.count), nowMs);
  agent.destroy();
  await send({ type: 'result', ...figures, startedAt: run.startedAt });
}

if (require.main === module) runForked<WebhookDirectOptions>('webhook-direct.js', 'webhooks.bench.js', main);
