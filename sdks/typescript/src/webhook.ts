import { Webhook as StandardWebhook } from 'standardwebhooks';
import { WebhookVerificationError } from './errors.js';
import type { WebhookEvents } from './generated/openapi.js';

/** Every event type Postbus posts to webhook endpoints, e.g. `message.sent`, `user.unsubscribed`. */
export type WebhookEventType = keyof WebhookEvents;

/**
 * What Postbus posts to a webhook endpoint: `{ type, timestamp, data }`, typed from the gateway's
 * OpenAPI document (its `webhooks`, generated into src/generated/openapi.ts). Without a type
 * argument it is any of them; narrow it by `type`.
 */
export type WebhookEvent<T extends WebhookEventType = WebhookEventType> = WebhookEvents[T];

/**
 * Request headers as frameworks hand them over: a fetch `Headers`, Node's `IncomingHttpHeaders`
 * (arrays for repeated headers), a plain object in any case, or CGI/PHP-style `HTTP_WEBHOOK_ID` keys.
 */
export type WebhookHeaders =
  | { get(name: string): string | null; forEach(callback: (value: string, name: string) => void): void }
  | Record<string, string | string[] | undefined>;

export interface WebhookVerifyOptions {
  /** The current time; by default the clock. */
  now?: Date | (() => Date);
  /** How far the signed timestamp may be from now, either way. Default 300 s (the Standard Webhooks default). */
  toleranceSeconds?: number;
}

const DEFAULT_TOLERANCE_SECONDS = 5 * 60;

/** `Webhook-Id`, `webhook-id` and `HTTP_WEBHOOK_ID` all name the same header. */
const headerKey = (name: string) =>
  name
    .toLowerCase()
    .replace(/^http_/, '')
    .replace(/_/g, '-');

function normalise(headers: WebhookHeaders): Map<string, string> {
  const out = new Map<string, string>();
  const add = (name: string, value: string | string[] | undefined) => {
    if (value === undefined) return;
    const key = headerKey(name);
    const joined = Array.isArray(value) ? value.join(' ') : value;
    // A repeated signature header adds signatures; it never replaces them.
    out.set(key, out.has(key) ? `${out.get(key)} ${joined}` : joined);
  };
  if (typeof headers.get === 'function' && typeof headers.forEach === 'function') {
    (headers as { forEach(callback: (value: string, name: string) => void): void }).forEach((value, name) => add(name, value));
  } else {
    for (const [name, value] of Object.entries(headers as Record<string, string | string[] | undefined>)) add(name, value);
  }
  return out;
}

/** Compares in time independent of where the strings differ. */
function constantTimeEqual(a: string, b: string): boolean {
  const left = new TextEncoder().encode(a);
  const right = new TextEncoder().encode(b);
  let difference = left.length ^ right.length;
  for (let i = 0; i < left.length; i++) difference |= left[i]! ^ (right[i % Math.max(right.length, 1)] ?? 0);
  return difference === 0;
}

/**
 * Verifies Postbus webhooks (Standard Webhooks: `webhook-id`, `webhook-timestamp`,
 * `webhook-signature: v1,<base64 HMAC-SHA256 of "id.timestamp.body">`). Holds one secret, or several
 * while rotating one: a delivery signed with any of them is accepted.
 */
export class Webhook {
  private readonly signers: StandardWebhook[];
  private readonly toleranceSeconds: number;

  /** `secrets`: `whsec_…` as Postbus showed it (on create or rotate-secret); several during a rotation. */
  constructor(secrets: string | readonly string[], options: { toleranceSeconds?: number } = {}) {
    const list = typeof secrets === 'string' ? [secrets] : [...secrets];
    if (list.length === 0) throw new WebhookVerificationError('secret', 'No webhook secret given');
    this.signers = list.map((secret) => {
      try {
        return new StandardWebhook(secret);
      } catch (error) {
        throw new WebhookVerificationError('secret', `A webhook secret is not a whsec_ secret: ${(error as Error).message}`);
      }
    });
    this.toleranceSeconds = options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
  }

  /**
   * Checks the signature over the raw body (the exact bytes received: parse JSON only afterwards)
   * and returns the parsed event. Throws WebhookVerificationError; answer such a request with 400.
   */
  verify<Event = WebhookEvent>(rawBody: string | Uint8Array, headers: WebhookHeaders, options: WebhookVerifyOptions = {}): Event {
    const found = normalise(headers);
    const id = found.get('webhook-id');
    const timestampHeader = found.get('webhook-timestamp');
    const signatures = found.get('webhook-signature');
    if (!id || !timestampHeader || !signatures) {
      throw new WebhookVerificationError('headers', 'Missing webhook-id, webhook-timestamp or webhook-signature header');
    }
    if (!/^\d{1,12}$/.test(timestampHeader.trim())) {
      throw new WebhookVerificationError('timestamp', 'The webhook-timestamp header is not a unix time');
    }
    const timestamp = Number(timestampHeader.trim());
    const now = options.now === undefined ? new Date() : typeof options.now === 'function' ? options.now() : options.now;
    const tolerance = options.toleranceSeconds ?? this.toleranceSeconds;
    const skew = Math.floor(now.getTime() / 1000) - timestamp;
    if (skew > tolerance) throw new WebhookVerificationError('timestamp', 'The webhook timestamp is too old (a replay?)');
    if (-skew > tolerance) throw new WebhookVerificationError('timestamp', 'The webhook timestamp is too far in the future');

    const body = typeof rawBody === 'string' ? rawBody : new TextDecoder().decode(rawBody);
    const signedAt = new Date(timestamp * 1000);
    const expected = this.signers.map((signer) => signer.sign(id, signedAt, body).slice('v1,'.length));
    const offered = signatures
      .split(' ')
      .filter((part) => part.startsWith('v1,'))
      .map((part) => part.slice('v1,'.length));
    const matches = offered.some((signature) => expected.some((candidate) => constantTimeEqual(signature, candidate)));
    if (!matches) throw new WebhookVerificationError('signature', 'No webhook signature matches the secret(s)');
    try {
      return JSON.parse(body) as Event;
    } catch {
      throw new WebhookVerificationError('payload', 'The webhook body is not JSON');
    }
  }
}

/** One-shot form of `new Webhook(secrets).verify(rawBody, headers, options)`. */
export function verifyWebhook<Event = WebhookEvent>(
  rawBody: string | Uint8Array,
  headers: WebhookHeaders,
  secrets: string | readonly string[],
  options: WebhookVerifyOptions = {},
): Event {
  return new Webhook(secrets, options.toleranceSeconds === undefined ? {} : { toleranceSeconds: options.toleranceSeconds }).verify<Event>(
    rawBody,
    headers,
    options,
  );
}
