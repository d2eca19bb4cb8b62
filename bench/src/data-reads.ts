/**
 * The reads of issue 14's item 1 as a client makes them through the gateway, each timed over a run of sequential
 * requests. Which of them the running gateway offers is read from its /v1/openapi.json: a read whose route or
 * query parameter is not there yet is reported as skipped, with why, never measured against a 422.
 */
import { Agent, request } from 'node:http';
import { latencyOf, type Latency } from './stats';

/** One read of the public API with the ids it needs filled in. */
export interface ReadSpec {
  /** What the read is, as the report names it (the key of the comparison between phases). */
  name: string;
  /** The route as /v1/openapi.json names it, e.g. /v1/projects/{projectId}/messages/{messageId}. */
  route: string;
  /** Query parameters the read sends (each must be one the route declares). */
  query?: Record<string, string>;
  /** The concrete path without the query, e.g. /v1/projects/6560…/messages/msg_…. */
  path: string;
}

export interface ReadResult {
  name: string;
  route: string;
  request: string;
  /** Requests answered 200, timed one after the other. */
  latencyMs: Latency;
  ok: number;
  /** Status codes of the answers that were not 200 (0: no answer), with the first such body. */
  failures: Record<string, number>;
  firstFailure: string | null;
  /** Requests not made because the read had used up its time budget (a read that scans a big store). */
  abandoned: number;
}

export interface SkippedRead {
  name: string;
  request: string;
  reason: string;
}

interface OpenApiParameter {
  name: string;
  in: string;
}
interface OpenApiDocument {
  paths: Record<string, Record<string, { parameters?: OpenApiParameter[] }>>;
}

/** The routes and query parameters the gateway documents. */
export class ApiSurface {
  private constructor(private readonly document: OpenApiDocument) {}

  static async read(gatewayUrl: string): Promise<ApiSurface> {
    const res = await fetch(`${gatewayUrl}/v1/openapi.json`);
    if (res.status !== 200) throw new Error(`GET /v1/openapi.json answered ${res.status}`);
    return new ApiSurface((await res.json()) as OpenApiDocument);
  }

  /** Null when the gateway serves the read; otherwise what it lacks. */
  missing(read: Pick<ReadSpec, 'route' | 'query'>): string | null {
    const operation = this.document.paths[read.route]?.['get'];
    if (!operation) return `the gateway has no GET ${read.route} yet`;
    const declared = new Set((operation.parameters ?? []).filter((p) => p.in === 'query').map((p) => p.name));
    const absent = Object.keys(read.query ?? {}).filter((name) => !declared.has(name));
    return absent.length > 0 ? `GET ${read.route} has no query parameter ${absent.join(', ')} yet` : null;
  }

  has(route: string): boolean {
    return this.document.paths[route]?.['get'] !== undefined;
  }
}

export const requestOf = (read: Pick<ReadSpec, 'path' | 'query'>): string => {
  const query = new URLSearchParams(read.query ?? {}).toString();
  return query ? `${read.path}?${query}` : read.path;
};

/** A keep-alive GET client, so that each timing is the request's own and not a connection's set-up. */
export class ReadClient {
  private readonly agent = new Agent({ keepAlive: true, maxSockets: 1 });
  private readonly url: URL;

  constructor(
    gatewayUrl: string,
    private readonly authorization: string,
  ) {
    this.url = new URL(gatewayUrl);
  }

  get(path: string): Promise<{ status: number; text: string; ms: number }> {
    const started = performance.now();
    return new Promise((resolve) => {
      const req = request(
        {
          agent: this.agent,
          host: this.url.hostname,
          port: this.url.port,
          method: 'GET',
          path,
          headers: { authorization: this.authorization, accept: 'application/json' },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('error', (error) => resolve({ status: 0, text: error.message, ms: performance.now() - started }));
          res.on('end', () =>
            resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8'), ms: performance.now() - started }),
          );
        },
      );
      // A read that takes this long has failed the goal many times over; the gateway answers 503 itself well before.
      req.setTimeout(30_000, () => req.destroy(new Error('no answer within 30 s')));
      req.on('error', (error) => resolve({ status: 0, text: error.message, ms: performance.now() - started }));
      req.end();
    });
  }

  /** GET that must answer 200 with JSON: the parsed body. */
  async json<T>(path: string): Promise<T> {
    const res = await this.get(path);
    if (res.status !== 200) throw new Error(`GET ${path} answered ${res.status}: ${res.text.slice(0, 300)}`);
    return JSON.parse(res.text) as T;
  }

  close(): void {
    this.agent.destroy();
  }
}

/**
 * `requests` sequential GETs of each read (after `warmup` untimed ones); skipped reads say why. A read stops once
 * it has taken `budgetMs` (with at least 5 timed requests): one that scans a big store takes seconds a request,
 * and its figures are clear long before 40 of them.
 */
export async function measureReads(
  client: ReadClient,
  surface: ApiSurface,
  reads: readonly ReadSpec[],
  {
    requests,
    warmup,
    budgetMs = 30_000,
    signal,
    onRead,
  }: { requests: number; warmup: number; budgetMs?: number; signal: AbortSignal; onRead: (result: ReadResult | SkippedRead) => void },
): Promise<{ measured: ReadResult[]; skipped: SkippedRead[] }> {
  const measured: ReadResult[] = [];
  const skipped: SkippedRead[] = [];
  for (const read of reads) {
    signal.throwIfAborted();
    const path = requestOf(read);
    const reason = surface.missing(read);
    if (reason !== null) {
      const skip = { name: read.name, request: path, reason };
      skipped.push(skip);
      onRead(skip);
      continue;
    }
    const began = performance.now();
    for (let i = 0; i < warmup && performance.now() - began < budgetMs / 2; i++) await client.get(path);
    const times: number[] = [];
    const failures: Record<string, number> = {};
    let firstFailure: string | null = null;
    let made = 0;
    for (; made < requests; made++) {
      signal.throwIfAborted();
      if (made >= 5 && performance.now() - began > budgetMs) break;
      const res = await client.get(path);
      if (res.status === 200) times.push(res.ms);
      else {
        failures[String(res.status)] = (failures[String(res.status)] ?? 0) + 1;
        firstFailure ??= `${res.status} after ${Math.round(res.ms)} ms: ${res.text.slice(0, 300)}`;
      }
    }
    const result: ReadResult = {
      name: read.name,
      route: read.route,
      request: path,
      latencyMs: latencyOf(times),
      ok: times.length,
      failures,
      firstFailure,
      abandoned: requests - made,
    };
    measured.push(result);
    onRead(result);
  }
  return { measured, skipped };
}
