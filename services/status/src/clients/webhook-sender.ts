import http from 'node:http';
import https from 'node:https';
import { Webhook } from 'standardwebhooks';
import type { AddressPolicy } from '@postbus/http';
import type { Subscriber } from '../domain/ports';
import { sendableWebhookUrl } from '../domain/webhook-url';

const TIMEOUT_MS = 10_000;

/**
 * One signed POST of a status notification (Standard Webhooks: `webhook-id`, the same on every
 * attempt of a message, `webhook-timestamp` and `webhook-signature`) to an address the policy
 * allows (any, without a policy). The status code, or null when there was none (refused, timed
 * out, unsafe address or port).
 */
export function postNotification(
  policy: AddressPolicy | undefined,
  subscriber: Subscriber,
  messageId: string,
  body: string,
): Promise<number | null> {
  return new Promise((resolve) => {
    let url: URL;
    try {
      url = new URL(subscriber.address);
    } catch {
      return resolve(null);
    }
    if (!sendableWebhookUrl(url, policy)) return resolve(null);
    const now = new Date();
    const signature = new Webhook(subscriber.secret ?? '').sign(messageId, now, body);
    const client = url.protocol === 'https:' ? https : http;
    const request = client.request(url, {
      method: 'POST',
      ...(policy ? { lookup: policy.lookup } : {}),
      headers: {
        'content-type': 'application/json',
        'content-length': String(Buffer.byteLength(body)),
        'user-agent': 'Postbus-Status/0.1',
        'webhook-id': messageId,
        'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
        'webhook-signature': signature,
      },
      signal: AbortSignal.timeout(TIMEOUT_MS),
    });
    request.on('response', (response) => {
      response.resume(); // the body is not read
      resolve(response.statusCode ?? null);
    });
    request.on('error', () => resolve(null));
    request.end(body);
  });
}
