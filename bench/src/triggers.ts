/** Fires triggers at the gateway's send and batch endpoints and follows the messages into the SMTP sink. */
import { Agent, request } from 'node:http';
import { sleep, type SinkClient } from '@postbus/testing';
import { dataOf, userOf } from './mail-template';
import { paced } from './pacing';

/** One message of a run: a single send, or an item of a batch (sent and answered with its batch). */
export interface Trigger {
  n: number;
  /** Epoch ms when the request was handed to the socket pool (the sink's `Created` is epoch ms too). */
  sentAt: number;
  /** When it was due (paced runs), epoch ms; equals sentAt in closed-loop runs. */
  dueAt: number;
  answeredAt: number;
  /** The HTTP status; for a batch's item, 200 when accepted, else its problem's status (or the batch's). */
  status: number;
  messageId: string | null;
  error?: string;
}

export interface TriggerTarget {
  gatewayUrl: string;
  projectId: string;
  emailKey: string;
  authorization: string;
  /** Sockets kept open to the gateway: at most this many requests in flight. */
  connections: number;
  /** Fields every send carries besides its user and data (e.g. attachments). */
  extra?: Record<string, unknown>;
  /**
   * Content sends instead of template sends: the n-th message's body of POST /v1/projects/{p}/emails/send (its
   * `to`, subject and bodies), as an app that makes its own HTML sends it. `emailKey` and `extra` are then unused.
   */
  content?: (tag: string, n: number) => Record<string, unknown>;
  /** Each send with an Idempotency-Key of its own (`<tag>-<n>`), as SMTP submission sends every message. */
  idempotencyKeys?: boolean;
}

/** One item of a batch's answer: accepted with its message id, or rejected with a problem. */
interface BatchItemAnswer {
  status?: string;
  message_id?: unknown;
  error?: { status?: number; title?: string; errors?: unknown };
}

/**
 * A keep-alive HTTP client of POST /v1/projects/{p}/emails/{key}/send and of …/emails/batch, lighter than fetch on
 * the generator's core.
 */
export class TriggerClient {
  private readonly agent: Agent;
  private readonly url: URL;
  private readonly sendPath: string;
  private readonly batchPath: string;

  constructor(private readonly target: TriggerTarget) {
    this.agent = new Agent({ keepAlive: true, maxSockets: target.connections, maxFreeSockets: target.connections });
    this.url = new URL(target.gatewayUrl);
    this.sendPath = target.content
      ? `/v1/projects/${target.projectId}/emails/send`
      : `/v1/projects/${target.projectId}/emails/${encodeURIComponent(target.emailKey)}/send`;
    this.batchPath = `/v1/projects/${target.projectId}/emails/batch`;
  }

  fire(tag: string, n: number, dueAt?: number): Promise<Trigger> {
    const body = JSON.stringify(
      this.target.content ? this.target.content(tag, n) : { user: userOf(tag, n), data: dataOf(n), ...this.target.extra },
    );
    const headers = this.target.idempotencyKeys ? { 'idempotency-key': `${tag}-${n}` } : undefined;
    const sentAt = Date.now();
    const done = (status: number, messageId: string | null, error?: string): Trigger => ({
      n,
      sentAt,
      dueAt: dueAt ?? sentAt,
      answeredAt: Date.now(),
      status,
      messageId,
      ...(error !== undefined ? { error } : {}),
    });
    return this.post(this.sendPath, body, headers).then(({ status, text, error }) => {
      if (error !== undefined) return done(status, null, error);
      if (status !== 200) return done(status, null, text.slice(0, 300));
      try {
        const id = (JSON.parse(text) as { message_id?: unknown }).message_id;
        return typeof id === 'string' ? done(200, id) : done(200, null, `no message_id in ${text.slice(0, 300)}`);
      } catch {
        return done(200, null, `not JSON: ${text.slice(0, 300)}`);
      }
    });
  }

  /**
   * Messages `from` … `from + count - 1` of a run in one POST /v1/projects/{p}/emails/batch: a trigger per item,
   * each sent and answered when its batch was. An item the batch rejected carries its problem's status and title;
   * a batch answered other than 200 (or not at all) makes every item of it a refused trigger with that status.
   */
  async fireBatch(tag: string, from: number, count: number): Promise<Trigger[]> {
    const numbers = Array.from({ length: count }, (_, i) => from + i);
    const body = JSON.stringify({
      messages: numbers.map((n) => ({ email_key: this.target.emailKey, user: userOf(tag, n), data: dataOf(n), ...this.target.extra })),
    });
    const sentAt = Date.now();
    const { status, text, error } = await this.post(this.batchPath, body);
    const answeredAt = Date.now();
    const each = (n: number, itemStatus: number, messageId: string | null, itemError?: string): Trigger => ({
      n,
      sentAt,
      dueAt: sentAt,
      answeredAt,
      status: itemStatus,
      messageId,
      ...(itemError !== undefined ? { error: itemError } : {}),
    });
    const allRefused = (why: string) => numbers.map((n) => each(n, status, null, why));
    if (error !== undefined) return allRefused(error);
    if (status !== 200) return allRefused(text.slice(0, 300));
    let results: BatchItemAnswer[];
    try {
      const data = (JSON.parse(text) as { data?: unknown }).data;
      if (!Array.isArray(data) || data.length !== count) return allRefused(`not ${count} results in ${text.slice(0, 300)}`);
      results = data as BatchItemAnswer[];
    } catch {
      return allRefused(`not JSON: ${text.slice(0, 300)}`);
    }
    return numbers.map((n, i) => {
      const result = results[i];
      if (result?.status === 'accepted' && typeof result.message_id === 'string') return each(n, 200, result.message_id);
      const problem = result?.error;
      return each(n, problem?.status ?? 0, null, JSON.stringify(problem ?? result).slice(0, 300));
    });
  }

  /** `count` messages in batches of `batchSize` (the last may be smaller), `concurrency` batches in flight. */
  async batchedLoop(tag: string, count: number, batchSize: number, concurrency: number, signal?: AbortSignal): Promise<Trigger[]> {
    const results: Trigger[] = [];
    let next = 0;
    const worker = async () => {
      while (next < count && !signal?.aborted) {
        const from = next;
        next = Math.min(count, next + batchSize);
        results.push(...(await this.fireBatch(tag, from, next - from)));
      }
    };
    await Promise.all(Array.from({ length: Math.min(concurrency, Math.ceil(count / batchSize)) }, worker));
    signal?.throwIfAborted();
    return results.sort((a, b) => a.n - b.n);
  }

  /** One JSON POST to the gateway: its status and body, or why no answer came. */
  private post(
    path: string,
    body: string,
    extraHeaders?: Record<string, string>,
  ): Promise<{ status: number; text: string; error?: string }> {
    return new Promise((resolve) => {
      const req = request(
        {
          agent: this.agent,
          host: this.url.hostname,
          port: this.url.port,
          method: 'POST',
          path,
          headers: {
            authorization: this.target.authorization,
            'content-type': 'application/json',
            'content-length': Buffer.byteLength(body),
            ...extraHeaders,
          },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('error', (error) => resolve({ status: res.statusCode ?? 0, text: '', error: error.message }));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
        },
      );
      req.on('error', (error) => resolve({ status: 0, text: '', error: error.message }));
      req.end(body);
    });
  }

  /** `count` triggers, `concurrency` in flight, each sent as soon as one is answered. */
  async closedLoop(tag: string, count: number, concurrency: number, signal?: AbortSignal): Promise<Trigger[]> {
    const results: Trigger[] = [];
    let next = 0;
    const worker = async () => {
      while (next < count && !signal?.aborted) results.push(await this.fire(tag, next++));
    };
    await Promise.all(Array.from({ length: Math.min(concurrency, count) }, worker));
    signal?.throwIfAborted();
    return results.sort((a, b) => a.n - b.n);
  }

  /** `rate` triggers a second, each sent when due whatever the answers to earlier ones (an open loop). */
  async paced(tag: string, rate: number, durationSec: number, signal?: AbortSignal): Promise<Trigger[]> {
    const results = await paced(rate, Math.round(rate * durationSec), (n, dueAt) => this.fire(tag, n, dueAt), signal ? { signal } : {});
    signal?.throwIfAborted();
    return results;
  }

  close(): void {
    this.agent.destroy();
  }
}

export interface Arrival {
  messageId: string;
  /** The sink's `Created`, epoch ms. */
  created: number;
}

/**
 * Polls the sink until it holds `expected` messages, or until its count has not grown for `stallMs`; answers
 * the count it reached.
 */
export async function waitForSinkCount(
  sink: SinkClient,
  expected: number,
  {
    stallMs = 30_000,
    intervalMs = 20,
    signal,
    onProgress,
  }: { stallMs?: number; intervalMs?: number; signal?: AbortSignal; onProgress?: (count: number) => void } = {},
): Promise<number> {
  let count = -1;
  let grewAt = Date.now();
  let reportedAt = Date.now();
  for (;;) {
    signal?.throwIfAborted();
    const now = await sink.count();
    if (now !== count) {
      count = now;
      grewAt = Date.now();
    }
    if (count >= expected || Date.now() - grewAt > stallMs) return count;
    if (onProgress && Date.now() - reportedAt >= 2_000) {
      reportedAt = Date.now();
      onProgress(count);
    }
    await sleep(intervalMs);
  }
}

/**
 * Fires the run's first trigger into an emptied sink and waits up to a minute for it there: the first waits for the
 * catalog (the project, its email) to reach the mailer, which the runs after it must not measure.
 */
export async function firstTriggerAtSink(client: TriggerClient, sink: SinkClient, tag: string, signal: AbortSignal): Promise<Trigger> {
  await sink.clear();
  const first = await client.fire(tag, 0);
  if (first.status !== 200) throw new Error(`the first trigger answered ${first.status}: ${first.error}`);
  if ((await waitForSinkCount(sink, 1, { stallMs: 60_000, signal })) < 1) throw new Error('the first trigger never reached the sink');
  return first;
}

/** Every message in the sink (Message-ID without angle brackets, arrival time), read in pages. */
export async function readSink(sink: SinkClient, pageSize = 500): Promise<Arrival[]> {
  const arrivals: Arrival[] = [];
  for (let start = 0; ; start += pageSize) {
    const page = await sink.list(pageSize, start);
    for (const m of page.messages) arrivals.push({ messageId: m.MessageID, created: Date.parse(m.Created) });
    if (page.messages.length < pageSize || start + pageSize >= page.total) return arrivals;
  }
}

/** How the triggers of a run compare with what reached the sink. */
export interface Delivery {
  triggers: number;
  accepted: number;
  arrived: number;
  /** Distinct accepted message ids found at the sink. */
  matched: number;
  missing: number;
  /** Sink entries beyond the first of a Message-ID. */
  duplicates: number;
  /** Sink entries no trigger of the run accounts for. */
  strangers: number;
  /** trigger sent → sink Created, ms, of each matched message. */
  latencies: number[];
  /** First trigger sent → last matched message at the sink, ms. */
  spanMs: number;
  /** Matched messages that reached the sink in each second after the first trigger was sent. */
  perSecond: number[];
}

export function matchDeliveries(triggers: readonly Trigger[], arrivals: readonly Arrival[], senderDomain: string): Delivery {
  const firstArrival = new Map<string, number>();
  let duplicates = 0;
  for (const a of arrivals) {
    const known = firstArrival.get(a.messageId);
    if (known === undefined) firstArrival.set(a.messageId, a.created);
    else {
      duplicates++;
      if (a.created < known) firstArrival.set(a.messageId, a.created);
    }
  }
  const accepted = triggers.filter((t) => t.messageId !== null);
  const latencies: number[] = [];
  let last = 0;
  const ours = new Set<string>();
  for (const t of accepted) {
    const key = `${t.messageId}@${senderDomain}`;
    ours.add(key);
    const created = firstArrival.get(key);
    if (created === undefined) continue;
    latencies.push(created - t.sentAt);
    last = Math.max(last, created);
  }
  const first = triggers.reduce((min, t) => Math.min(min, t.sentAt), Number.POSITIVE_INFINITY);
  const perSecond: number[] = [];
  for (const t of accepted) {
    const created = firstArrival.get(`${t.messageId}@${senderDomain}`);
    if (created === undefined) continue;
    const second = Math.max(0, Math.floor((created - first) / 1000));
    while (perSecond.length <= second) perSecond.push(0);
    perSecond[second]!++;
  }
  return {
    triggers: triggers.length,
    accepted: accepted.length,
    arrived: arrivals.length,
    matched: latencies.length,
    missing: accepted.length - latencies.length,
    duplicates,
    strangers: [...firstArrival.keys()].filter((id) => !ours.has(id)).length,
    latencies,
    spanMs: latencies.length > 0 ? last - first : 0,
    perSecond,
  };
}
