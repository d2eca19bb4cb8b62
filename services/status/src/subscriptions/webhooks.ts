import { randomUUID } from 'node:crypto';
import http from 'node:http';
import https from 'node:https';
import { Webhook } from 'standardwebhooks';
import type { Logger } from '@postbus/logger';
import type { WebhookAddressPolicy } from './address-policy';
import type { Subscriber } from './store';

/** Standard Webhooks' schedule, in ms: immediately, 5 s, 5 min, 30 min, 2 h, 5 h, 10 h. Tests pass a shorter one. */
export const DEFAULT_WEBHOOK_RETRY_SCHEDULE_MS = [0, 5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000];

const TIMEOUT_MS = 10_000;

export interface WebhookDeliveryOptions {
  policy: WebhookAddressPolicy;
  retryScheduleMs?: number[];
  logger?: Logger;
}

/**
 * Sends status notifications to webhook subscribers: signed (Standard Webhooks: webhook-id stable
 * across retries, webhook-timestamp, webhook-signature), retried on the schedule with ±10 % jitter
 * until a 2xx, a 410 (the receiver unsubscribes itself) or the schedule runs out. Retries live in
 * memory: a restart drops what is pending (status news is soon stale anyway).
 */
export class WebhookDelivery {
  private readonly timers = new Set<NodeJS.Timeout>();
  private stopped = false;
  private readonly schedule: number[];

  constructor(private readonly options: WebhookDeliveryOptions) {
    this.schedule = options.retryScheduleMs ?? DEFAULT_WEBHOOK_RETRY_SCHEDULE_MS;
  }

  /** Queues one message to one subscriber; `onGone` runs when the receiver answers 410. */
  deliver(subscriber: Subscriber, payload: object, onGone: () => void): void {
    const body = JSON.stringify(payload);
    const messageId = `msg_${randomUUID()}`;
    this.attempt(subscriber, messageId, body, 0, onGone);
  }

  private attempt(subscriber: Subscriber, messageId: string, body: string, index: number, onGone: () => void): void {
    const delay = this.schedule[index];
    if (delay === undefined || this.stopped) {
      this.options.logger?.warn('status webhook delivery gave up', { subscriberId: subscriber.id, messageId, attempts: index });
      return;
    }
    const jittered = delay === 0 ? 0 : Math.round(delay * (0.9 + Math.random() * 0.2));
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      void this.post(subscriber, messageId, body).then((status) => {
        if (status !== null && status >= 200 && status < 300) return;
        if (status === 410) return onGone();
        this.options.logger?.info('status webhook delivery failed; will retry', {
          subscriberId: subscriber.id,
          messageId,
          status,
          attempt: index + 1,
        });
        this.attempt(subscriber, messageId, body, index + 1, onGone);
      });
    }, jittered);
    this.timers.add(timer);
  }

  /** One POST; the status code, or null when it did not get one (refused, timed out, unsafe address). */
  private post(subscriber: Subscriber, messageId: string, body: string): Promise<number | null> {
    return new Promise((resolve) => {
      let url: URL;
      try {
        url = new URL(subscriber.address);
      } catch {
        return resolve(null);
      }
      const now = new Date();
      const signature = new Webhook(subscriber.secret ?? '').sign(messageId, now, body);
      const client = url.protocol === 'https:' ? https : http;
      const request = client.request(url, {
        method: 'POST',
        lookup: this.options.policy.lookup,
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

  stop(): void {
    this.stopped = true;
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
  }
}
