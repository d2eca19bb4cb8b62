/** HTTP calls for tests, as a client of the public API would make them. */

export interface CallResult {
  status: number;
  headers: Headers;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests assert on arbitrary JSON shapes
  body: any;
  text: string;
}

/** One HTTP call with a JSON body (or a raw string with its own content type). */
export async function call(
  url: string,
  method: string,
  path: string,
  options: { auth?: string; json?: unknown; raw?: string; contentType?: string; headers?: Record<string, string> } = {},
): Promise<CallResult> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.auth) headers['authorization'] = options.auth;
  let body: string | undefined;
  if (options.json !== undefined) {
    body = JSON.stringify(options.json);
    headers['content-type'] = 'application/json';
  } else if (options.raw !== undefined) {
    body = options.raw;
    headers['content-type'] = options.contentType ?? 'text/plain';
  }
  const res = await fetch(`${url}${path}`, { method, headers, ...(body !== undefined ? { body } : {}) });
  const text = await res.text();
  let parsed: unknown;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    // not JSON: the caller asserts on `text`
  }
  return { status: res.status, headers: res.headers, body: parsed, text };
}

/** The Basic credentials header for a client id and key, as `curl -u` builds it. */
export const basicAuth = (clientId: string, apiKey: string): string => `Basic ${Buffer.from(`${clientId}:${apiKey}`).toString('base64')}`;
