import type { Problem } from './types';

/** A /v1 answer that was not 2xx, with its problem body. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly problem: Problem,
  ) {
    super(problem.detail ?? problem.title ?? `The server answered ${status}.`);
    this.name = 'ApiError';
  }
}

const SESSION_ENDED = 'postbus:session-ended';

/** Calls `listener` when an API call finds the session gone (expired, signed out elsewhere, key revoked). */
export function onSessionEnded(listener: () => void): () => void {
  window.addEventListener(SESSION_ENDED, listener);
  return () => window.removeEventListener(SESSION_ENDED, listener);
}

export interface ApiRequest {
  method?: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  body?: unknown;
  query?: Record<string, string | number | undefined>;
  headers?: Record<string, string>;
  /**
   * Whether a 401 means a session the panel had has ended (the default), which sends the user to
   * sign in with a notice. Off for calls that find out whether there is a session at all.
   */
  reportSessionEnd?: boolean;
}

/**
 * The one way the panel talks to Postbus: a relative /v1 path on the page's own origin, the
 * session cookie sent by the browser. Throws ApiError with the problem body for any non-2xx.
 */
export async function api<T>(
  path: string,
  { method = 'GET', body, query, headers = {}, reportSessionEnd = true }: ApiRequest = {},
): Promise<T> {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(query ?? {})) if (value !== undefined && value !== '') search.set(name, String(value));
  const url = `/v1${path}${search.size ? `?${search.toString()}` : ''}`;
  let res: Response;
  try {
    res = await fetch(url, {
      method,
      credentials: 'same-origin',
      headers: { Accept: 'application/json', ...(body !== undefined ? { 'Content-Type': 'application/json' } : {}), ...headers },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
  } catch {
    throw new ApiError(0, { title: 'Network error', detail: 'Postbus could not be reached. Check your connection and try again.' });
  }
  if (res.status === 204) return undefined as T;
  const text = await res.text();
  const parsed: unknown = text ? safeJson(text) : undefined;
  if (!res.ok) {
    const problem: Problem = parsed && typeof parsed === 'object' ? parsed : { title: res.statusText };
    // A call with its own credentials (signing in) reports its 401 itself.
    if (res.status === 401 && reportSessionEnd && !headers['Authorization']) window.dispatchEvent(new Event(SESSION_ENDED));
    throw new ApiError(res.status, problem);
  }
  return parsed as T;
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** A readable sentence for any error a query or mutation threw. */
export function describeError(error: unknown): string {
  if (error instanceof ApiError) {
    const fields = error.problem.errors?.map((e) => `${e.pointer || 'body'}: ${e.message}`).join('; ');
    return [error.message, fields].filter(Boolean).join(' ');
  }
  return error instanceof Error ? error.message : 'Something went wrong.';
}
