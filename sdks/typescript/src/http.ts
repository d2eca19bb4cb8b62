import { ConnectionError, errorForResponse, IDEMPOTENCY_IN_FLIGHT, PostbusError, TimeoutError, type Problem } from './errors.js';
import { SDK_VERSION } from './version.js';

export type FetchLike = (input: string, init: RequestInit) => Promise<Response>;

export interface PostbusOptions {
  /** The client id (the user name of HTTP Basic). */
  clientId: string;
  /** An API key of that client (scope `sdk` suffices for the data-plane writes; reads need `full`). */
  apiKey: string;
  /** Where the gateway answers, e.g. `https://postbus.example.com` (with or without a trailing slash). */
  baseUrl: string;
  /** Retries after the first try on a connection error, timeout, 429, 409 in flight or 5xx. Default 3; 0 disables. */
  maxRetries?: number;
  /** Time for one try, until the whole answer has arrived. Default 30 000 ms. */
  timeoutMs?: number;
  /** The first backoff step; each retry doubles it (full jitter). Default 500 ms. */
  retryBaseDelayMs?: number;
  /** The longest wait between two tries, also for a `Retry-After`. Default 30 000 ms. */
  retryMaxDelayMs?: number;
  /** Replaces the global fetch (tests, proxies, instrumentation). */
  fetch?: FetchLike;
  /** Replaces the wait between tries (tests). */
  sleep?: (ms: number) => Promise<void>;
  /** Replaces the clock, for `Retry-After` given as an HTTP date (tests). */
  now?: () => Date;
  /** Replaces Math.random for the jitter (tests). */
  random?: () => number;
}

/** Per call. */
export interface RequestOptions {
  /** Your own Idempotency-Key (1 to 255 printable ASCII characters); by default one is generated per call. */
  idempotencyKey?: string;
  /** Overrides the client's `maxRetries` for this call. */
  maxRetries?: number;
  /** Overrides the client's `timeoutMs` for this call. */
  timeoutMs?: number;
  /** Cancels the call, including the wait between retries. */
  signal?: AbortSignal;
}

type Query = Record<string, string | number | boolean | undefined>;

interface Call {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  path: string;
  query?: Query;
  body?: unknown;
  options?: RequestOptions | undefined;
}

const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,255}$/;

/** Encodes one path segment: an id holding `/`, `?` or `#` stays one segment. */
export const segment = (value: string): string => encodeURIComponent(value);

const defaultSleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason as Error);
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        reject(signal.reason as Error);
      },
      { once: true },
    );
  });

function basicCredentials(clientId: string, apiKey: string): string {
  const bytes = new TextEncoder().encode(`${clientId}:${apiKey}`);
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return `Basic ${btoa(binary)}`;
}

const isNode = typeof process !== 'undefined' && typeof process.versions?.node === 'string';

/** Seconds to wait from a Retry-After header: delay-seconds or an HTTP date. */
export function parseRetryAfter(value: string | null, now: Date): number | undefined {
  if (value === null) return undefined;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed);
  const at = Date.parse(trimmed);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, Math.ceil((at - now.getTime()) / 1000));
}

/** Sends calls to the gateway: credentials, JSON, one Idempotency-Key per POST, retries with backoff. */
export class HttpClient {
  private readonly baseUrl: string;
  private readonly authorization: string;
  private readonly maxRetries: number;
  private readonly timeoutMs: number;
  private readonly baseDelayMs: number;
  private readonly maxDelayMs: number;
  private readonly fetch: FetchLike;
  private readonly sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  private readonly now: () => Date;
  private readonly random: () => number;

  constructor(options: PostbusOptions) {
    if (!options.clientId || !options.apiKey) throw new TypeError('Postbus needs a clientId and an apiKey');
    if (!options.baseUrl) throw new TypeError('Postbus needs the gateway baseUrl, e.g. https://postbus.example.com');
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.authorization = basicCredentials(options.clientId, options.apiKey);
    this.maxRetries = options.maxRetries ?? 3;
    this.timeoutMs = options.timeoutMs ?? 30_000;
    this.baseDelayMs = options.retryBaseDelayMs ?? 500;
    this.maxDelayMs = options.retryMaxDelayMs ?? 30_000;
    const globalFetch = globalThis.fetch as FetchLike | undefined;
    const fetchImpl = options.fetch ?? globalFetch;
    if (!fetchImpl) throw new TypeError('No fetch: run on Node 20 or later, or pass options.fetch');
    this.fetch = fetchImpl;
    this.sleep = options.sleep ?? defaultSleep;
    this.now = options.now ?? (() => new Date());
    this.random = options.random ?? Math.random;
  }

  async request<T>(call: Call): Promise<T> {
    const options = call.options ?? {};
    const maxRetries = options.maxRetries ?? this.maxRetries;
    // Chosen once, before the first try: every retry carries the same key, so the gateway runs the
    // operation at most once however many tries it takes.
    const idempotencyKey = call.method === 'POST' ? (options.idempotencyKey ?? globalThis.crypto.randomUUID()) : undefined;
    if (idempotencyKey !== undefined && !IDEMPOTENCY_KEY.test(idempotencyKey)) {
      throw new TypeError('idempotencyKey must be 1 to 255 printable ASCII characters');
    }
    const headers: Record<string, string> = { Authorization: this.authorization, Accept: 'application/json' };
    if (isNode) headers['User-Agent'] = `postbus-typescript/${SDK_VERSION}`;
    if (call.body !== undefined) headers['Content-Type'] = 'application/json';
    if (idempotencyKey !== undefined) headers['Idempotency-Key'] = idempotencyKey;
    const url = this.url(call.path, call.query);
    const body = call.body === undefined ? undefined : JSON.stringify(call.body);

    for (let attempt = 0; ; attempt++) {
      let failure: PostbusError;
      let retryAfterSeconds: number | undefined;
      try {
        return await this.once<T>(url, { method: call.method, headers, ...(body === undefined ? {} : { body }) }, options);
      } catch (error) {
        if (!(error instanceof PostbusError)) throw error;
        failure = error;
        retryAfterSeconds = error instanceof Retryable ? error.retryAfter : undefined;
      }
      const surfaced = failure instanceof Retryable ? failure.error : failure;
      if (!(failure instanceof Retryable) || attempt >= maxRetries) throw surfaced;
      await this.sleep(this.delayMs(attempt, retryAfterSeconds), ...(options.signal ? [options.signal] : []));
    }
  }

  /** Full jitter: a random wait up to base × 2^attempt; the gateway's Retry-After when it gave one. */
  private delayMs(attempt: number, retryAfterSeconds: number | undefined): number {
    if (retryAfterSeconds !== undefined) return Math.min(retryAfterSeconds * 1000, this.maxDelayMs);
    return Math.floor(this.random() * Math.min(this.maxDelayMs, this.baseDelayMs * 2 ** attempt));
  }

  private url(path: string, query: Query | undefined): string {
    const search = new URLSearchParams();
    for (const [name, value] of Object.entries(query ?? {})) if (value !== undefined) search.set(name, String(value));
    const text = search.toString();
    return `${this.baseUrl}${path}${text ? `?${text}` : ''}`;
  }

  private async once<T>(url: string, init: RequestInit, options: RequestOptions): Promise<T> {
    const controller = new AbortController();
    const timeoutMs = options.timeoutMs ?? this.timeoutMs;
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, timeoutMs);
    const onCallerAbort = () => controller.abort(options.signal?.reason);
    options.signal?.addEventListener('abort', onCallerAbort, { once: true });
    try {
      let response: Response;
      let text: string;
      try {
        response = await this.fetch(url, { ...init, signal: controller.signal });
        text = await response.text();
      } catch (error) {
        if (options.signal?.aborted) throw options.signal.reason;
        if (timedOut) throw new Retryable(new TimeoutError(`No answer from Postbus within ${timeoutMs} ms`, { cause: error }));
        throw new Retryable(new ConnectionError(`Could not reach Postbus: ${(error as Error).message}`, { cause: error }));
      }
      const parsed = parseJson(text);
      if (response.ok) return parsed as T;
      const problem = isProblem(parsed) ? parsed : undefined;
      const retryAfter = parseRetryAfter(response.headers.get('retry-after'), this.now());
      const error = errorForResponse(response.status, problem, retryAfter);
      const retryable =
        response.status === 429 || response.status >= 500 || (response.status === 409 && problem?.type === IDEMPOTENCY_IN_FLIGHT);
      throw retryable ? new Retryable(error, retryAfter) : error;
    } finally {
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', onCallerAbort);
    }
  }
}

/** Marks a failure worth another try; only ever seen inside HttpClient. */
class Retryable extends PostbusError {
  constructor(
    readonly error: PostbusError,
    readonly retryAfter?: number,
  ) {
    super(error.message);
  }
}

function parseJson(text: string): unknown {
  if (!text) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

const isProblem = (value: unknown): value is Problem =>
  typeof value === 'object' &&
  value !== null &&
  typeof (value as Problem).status === 'number' &&
  typeof (value as Problem).type === 'string';
