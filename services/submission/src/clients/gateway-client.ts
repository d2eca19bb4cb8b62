import type { InternalTokens } from '@postbus/http';
import type { CallOrigin, Credentials, Gateway, GatewayAnswer, PreparedSend } from '../domain/ports';

/**
 * The gateway's public API as SMTP submission calls it: with the client's credentials (HTTP Basic:
 * the project id and the API key), the service's token in `X-Postbus-Submission` (an internal
 * token for audience `gateway`), and the SMTP client's address in `X-Postbus-Client-Address`.
 * With the token, the gateway counts authentication failures by that address (not this
 * service's), and records the message's source as `smtp`. Every call has `timeoutMs`; no answer
 * in time, a refused or reset connection, is status 0.
 */
export class GatewayClient implements Gateway {
  private readonly base: string;

  constructor(
    gatewayUrl: string,
    private readonly tokens: InternalTokens,
    private readonly timeoutMs: number,
  ) {
    this.base = gatewayUrl.replace(/\/+$/, '');
  }

  whoami(credentials: Credentials, origin: CallOrigin): Promise<GatewayAnswer> {
    return this.call('GET', '/v1/auth/whoami', credentials, origin);
  }

  send(credentials: Credentials, send: PreparedSend, origin: CallOrigin): Promise<GatewayAnswer> {
    return this.call('POST', `/v1/projects/${encodeURIComponent(credentials.projectId)}/emails/send`, credentials, origin, {
      body: send.body,
      headers: {
        'content-type': 'application/json',
        ...(send.idempotencyKey !== undefined ? { 'idempotency-key': send.idempotencyKey } : {}),
      },
    });
  }

  private async call(
    method: 'GET' | 'POST',
    path: string,
    credentials: Credentials,
    origin: CallOrigin,
    extra: { body?: string; headers?: Record<string, string> } = {},
  ): Promise<GatewayAnswer> {
    try {
      const response = await fetch(`${this.base}${path}`, {
        method,
        headers: {
          authorization: `Basic ${Buffer.from(`${credentials.projectId}:${credentials.apiKey}`).toString('base64')}`,
          'x-postbus-submission': await this.tokens.authorization('gateway'),
          'x-postbus-client-address': origin.clientAddress,
          accept: 'application/json',
          ...extra.headers,
        },
        ...(extra.body !== undefined ? { body: extra.body } : {}),
        redirect: 'manual',
        signal: AbortSignal.timeout(this.timeoutMs),
      });
      const text = await response.text();
      const retryAfter = Number(response.headers.get('retry-after') ?? Number.NaN);
      return {
        status: response.status,
        body: parseJson(text),
        ...(Number.isFinite(retryAfter) && retryAfter >= 0 ? { retryAfter } : {}),
      };
    } catch (error) {
      const reason = error instanceof Error ? ((error.cause as Error | undefined)?.message ?? error.message) : String(error);
      return { status: 0, body: null, error: reason };
    }
  }
}

function parseJson(text: string): unknown {
  if (!text) return null;
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}
