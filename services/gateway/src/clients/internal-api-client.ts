import {
  AppError,
  ConflictError,
  NotFoundError,
  ServiceUnavailableError,
  UnprocessableError,
  ValidationError,
  type FieldError,
} from '@postbus/errors';
import type { InternalTokens } from '@postbus/http';

export type QueryValues = Record<string, string | number | boolean | undefined>;

/** The answer of a write to an internal API: its status (2xx) and JSON body (none for 204). */
export interface InternalReply<T> {
  status: number;
  body: T | undefined;
}

/**
 * A client for another service's internal API (the owner of that data). The gateway has already
 * authenticated the client and checked the project; each call carries a short-lived internal token
 * addressed to that service (the service trusts nothing else). The service answers JSON, 404 for nothing
 * there, 400 (problem+json) for a query it refuses. An unreachable or failing service is a 503 with
 * Retry-After for the caller, never a 500.
 */
export abstract class InternalApiClient {
  private readonly baseUrl: string;

  protected constructor(
    /** Named in the 503 detail, e.g. "users". */
    private readonly service: string,
    /** The service's name in its internal tokens' audience (what its requireInternalToken checks). */
    private readonly audience: string,
    baseUrl: string,
    private readonly tokens: InternalTokens,
    private readonly timeoutMs = 5000,
  ) {
    this.baseUrl = baseUrl.replace(/\/+$/, '');
  }

  /** The JSON answer, or null when the service answers 404; its 400 and 422 are the gateway's own. */
  protected async get<T>(path: string, query: QueryValues = {}): Promise<T | null> {
    const response = await this.fetch('GET', path, query);
    if (response.status === 404) {
      await response.body?.cancel();
      return null;
    }
    if (response.status === 400) throw await refused(response);
    if (response.status === 422) throw await passedOn(response);
    if (!response.ok) {
      await response.body?.cancel();
      throw this.unavailable('could not answer');
    }
    return this.json<T>(response);
  }

  /** The bytes of an answer and their type, or null when the service answers 404. */
  protected async bytes(path: string): Promise<{ contentType: string; bytes: Uint8Array } | null> {
    const response = await this.fetch('GET', path, {});
    if (response.status === 404) {
      await response.body?.cancel();
      return null;
    }
    if (!response.ok) {
      await response.body?.cancel();
      throw this.unavailable('could not answer');
    }
    try {
      return {
        contentType: response.headers.get('content-type') ?? 'application/octet-stream',
        bytes: new Uint8Array(await response.arrayBuffer()),
      };
    } catch {
      throw this.unavailable('could not answer');
    }
  }

  /**
   * Any request with an optional JSON body. A 2xx comes back with its status; the service's 400,
   * 404, 409, 413 and 422 problems are thrown as the gateway's own (same status, slug and detail);
   * anything else is a 503.
   */
  protected async send<T>(
    method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE',
    path: string,
    { query = {}, body, timeoutMs }: { query?: QueryValues; body?: unknown; timeoutMs?: number } = {},
  ): Promise<InternalReply<T>> {
    const response = await this.fetch(method, path, query, body, timeoutMs);
    if (response.ok) {
      if (response.status === 204 || response.status === 205) {
        await response.body?.cancel();
        return { status: response.status, body: undefined };
      }
      return { status: response.status, body: await this.json<T>(response) };
    }
    if (response.status === 400) throw await refused(response);
    if (response.status === 404 || response.status === 409 || response.status === 413 || response.status === 422)
      throw await passedOn(response);
    await response.body?.cancel();
    throw this.unavailable('could not answer');
  }

  /** The client's timeout, unless the call states its own (a large upload). */
  protected get defaultTimeoutMs(): number {
    return this.timeoutMs;
  }

  private async fetch(method: string, path: string, query: QueryValues, body?: unknown, timeoutMs = this.timeoutMs): Promise<Response> {
    const search = new URLSearchParams();
    for (const [name, value] of Object.entries(query)) if (value !== undefined) search.set(name, String(value));
    const qs = search.toString();
    try {
      const headers: Record<string, string> = { authorization: await this.tokens.authorization(this.audience) };
      // Bytes (an attachment) travel as they are; anything else as JSON.
      const bytes = body instanceof Uint8Array;
      if (body !== undefined) headers['content-type'] = bytes ? 'application/octet-stream' : 'application/json';
      return await fetch(`${this.baseUrl}${path}${qs ? `?${qs}` : ''}`, {
        method,
        signal: AbortSignal.timeout(timeoutMs),
        headers,
        ...(body === undefined ? {} : { body: bytes ? body : JSON.stringify(body) }),
      });
    } catch {
      throw this.unavailable('did not answer');
    }
  }

  private async json<T>(response: Response): Promise<T> {
    try {
      return (await response.json()) as T;
    } catch {
      throw this.unavailable('could not answer');
    }
  }

  private unavailable(what: string): ServiceUnavailableError {
    return new ServiceUnavailableError(`The ${this.service} service ${what}; retry later.`, 2);
  }
}

/** A 400 of the internal API (its problem details are written for clients) as the gateway's 400. */
async function refused(response: Response): Promise<ValidationError> {
  let problem: { detail?: unknown; errors?: unknown } = {};
  try {
    problem = (await response.json()) as typeof problem;
  } catch {
    // not a problem body: the generic detail below
  }
  const isFieldError = (e: unknown): e is FieldError =>
    typeof e === 'object' && e !== null && typeof (e as FieldError).pointer === 'string' && typeof (e as FieldError).message === 'string';
  const errors = Array.isArray(problem.errors) ? (problem.errors as unknown[]).filter(isFieldError) : undefined;
  return new ValidationError(typeof problem.detail === 'string' ? problem.detail : 'The query is invalid.', errors);
}

const SLUG = /^\/problems\/([a-z0-9-]{1,64})$/;

/** A 404, 409, 413 or 422 of the internal API (its problem details are written for clients) as the gateway's own. */
async function passedOn(response: Response): Promise<AppError> {
  let problem: { type?: unknown; title?: unknown; detail?: unknown; errors?: unknown } = {};
  try {
    problem = (await response.json()) as typeof problem;
  } catch {
    // not a problem body: the generic details below
  }
  const detail = typeof problem.detail === 'string' ? problem.detail : undefined;
  const slug = typeof problem.type === 'string' ? SLUG.exec(problem.type)?.[1] : undefined;
  if (response.status === 404) return new NotFoundError(detail);
  if (response.status === 409) return new ConflictError(slug ?? 'conflict', detail ?? 'The request conflicts with the current state.');
  if (response.status === 413)
    return new AppError(
      413,
      slug ?? 'payload-too-large',
      typeof problem.title === 'string' ? problem.title : 'The request is too large',
      detail,
    );
  // The fields the service named, so that the client sees where its body was wrong.
  const fields = Array.isArray(problem.errors)
    ? problem.errors.filter(
        (e): e is FieldError => typeof (e as FieldError)?.pointer === 'string' && typeof (e as FieldError)?.message === 'string',
      )
    : [];
  return new UnprocessableError(
    slug ?? 'unprocessable',
    detail ?? 'The request cannot be processed.',
    fields.length > 0 ? fields.map(({ pointer, message }) => ({ pointer, message })) : undefined,
  );
}

export const projectPath = (projectId: string): string => `/internal/projects/${encodeURIComponent(projectId)}`;
