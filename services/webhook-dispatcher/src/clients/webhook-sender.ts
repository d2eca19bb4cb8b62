import http from 'node:http';
import https from 'node:https';
import { Webhook } from 'standardwebhooks';
import type { SendResult, SignatureHeaders, WebhookSender } from '../domain/ports';

const MAX_RESPONSE_BYTES = 1024;

const retryAfter = (value: string | string[] | undefined): number | null => {
  const text = Array.isArray(value) ? value[0] : value;
  if (!text) return null;
  const seconds = Number(text);
  if (Number.isFinite(seconds)) return Math.max(0, seconds);
  const at = Date.parse(text);
  return Number.isNaN(at) ? null : Math.max(0, (at - Date.now()) / 1000);
};

/** Svix's headers are Standard Webhooks' under another prefix: the same values, signed the same way. */
const PREFIXES: Record<SignatureHeaders, string> = { 'standard-webhooks': 'webhook', svix: 'svix' };

/**
 * The Standard Webhooks headers: webhook-id (stable across retries), webhook-timestamp,
 * webhook-signature (`v1,<base64 HMAC-SHA256 of "id.timestamp.body">`, one per secret); or Svix's
 * svix-id, svix-timestamp and svix-signature, as Resend sends them.
 */
export function signedHeaders(
  webhookId: string,
  payload: string,
  secrets: string[],
  at = new Date(),
  headers: SignatureHeaders = 'standard-webhooks',
): Record<string, string> {
  const prefix = PREFIXES[headers];
  return {
    [`${prefix}-id`]: webhookId,
    [`${prefix}-timestamp`]: String(Math.floor(at.getTime() / 1000)),
    [`${prefix}-signature`]: secrets.map((secret) => new Webhook(secret).sign(webhookId, at, payload)).join(' '),
  };
}

/**
 * One POST of a delivery: signed, with a bounded time, never following a redirect, reading at
 * most the first kilobyte of the answer. Never throws: a refused connection or a timeout is a
 * result like a status code.
 */
export const send: WebhookSender = (options) => {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  return new Promise((resolve) => {
    let settled = false;
    const finish = (result: Omit<SendResult, 'latencyMs'>) => {
      if (settled) return;
      settled = true;
      resolve({ ...result, latencyMs: elapsed() });
    };
    let url: URL;
    try {
      url = new URL(options.url);
    } catch {
      return finish({ statusCode: null, response: null, error: 'invalid url', retryAfterSeconds: null });
    }
    const refused = options.connectRefusal(url);
    if (refused) return finish({ statusCode: null, response: null, error: `refused: ${refused}`, retryAfterSeconds: null });
    const client = url.protocol === 'https:' ? https : http;
    const request = client.request(url, {
      method: 'POST',
      lookup: options.lookup,
      headers: {
        'content-type': 'application/json',
        'content-length': String(Buffer.byteLength(options.payload)),
        'user-agent': 'Postbus-Webhooks/0.1',
        'postbus-attempt': String(options.attempt),
        ...signedHeaders(options.webhookId, options.payload, options.secrets, new Date(), options.signatureHeaders),
      },
      signal: AbortSignal.timeout(options.timeoutMs),
    });
    request.on('response', (response) => {
      const chunks: Buffer[] = [];
      let size = 0;
      const done = () =>
        finish({
          statusCode: response.statusCode ?? null,
          response: Buffer.concat(chunks).toString('utf8').slice(0, MAX_RESPONSE_BYTES),
          error: null,
          retryAfterSeconds: retryAfter(response.headers['retry-after']),
        });
      response.on('data', (chunk: Buffer) => {
        if (size < MAX_RESPONSE_BYTES) chunks.push(chunk);
        size += chunk.length;
        if (size >= MAX_RESPONSE_BYTES) {
          done();
          response.destroy(); // the rest is not read
        }
      });
      response.on('end', done);
      response.on('error', done);
    });
    request.on('error', (error: NodeJS.ErrnoException) => {
      const reason =
        error.name === 'AbortError' || error.name === 'TimeoutError' ? `timed out after ${options.timeoutMs} ms` : error.message;
      finish({ statusCode: null, response: null, error: reason.slice(0, 300), retryAfterSeconds: null });
    });
    // A string body goes out in one write with the headers (a Buffer goes in a second one).
    request.end(options.payload);
  });
};
