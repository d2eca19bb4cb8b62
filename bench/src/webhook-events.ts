/**
 * What the webhook benchmark sends, shared by its processes: the `message.sent` event of message n as the mailer
 * publishes it, the webhook body the dispatcher makes of it, and the Standard Webhooks headers it signs it with.
 */
import { messageWebhook, serialiseWebhookBody, type MessageData } from '@postbus/contracts';
import { Webhook } from 'standardwebhooks';

/** The message id of the n-th event of a run (also what the receiver reads back from each body). */
export const messageIdOf = (tag: string, n: number): string => `${tag}_${n}`;

/** A `message.sent` event as the mailer publishes it (libs/contracts MessageEvent). */
export function sentEvent(tag: string, projectId: string, n: number, at = new Date()): MessageData<'message.sent'> {
  return {
    messageId: messageIdOf(tag, n),
    projectId,
    emailKey: 'bench',
    email: `user${n}@example.org`,
    userId: `user-${n}`,
    event: 'sent',
    sequence: 3,
    at: at.toISOString(),
    smtp: { code: 250, response: '250 2.0.0 Ok: queued as BENCH' },
  };
}

/** The body the dispatcher POSTs for it: the contracts' own builder (libs/contracts/src/webhook-events.ts). */
export const webhookBody = (e: MessageData<'message.sent'>): string => serialiseWebhookBody(messageWebhook('message.sent', e));

/** The dispatcher's request headers (services/webhook-dispatcher/src/clients/webhook-sender.ts: send, signedHeaders). */
export function webhookHeaders(webhookId: string, payload: string, secrets: string[], at = new Date()): Record<string, string> {
  return {
    'content-type': 'application/json',
    'content-length': String(Buffer.byteLength(payload)),
    'user-agent': 'Postbus-Webhooks/0.1',
    'postbus-attempt': '1',
    'webhook-id': webhookId,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': secrets.map((secret) => new Webhook(secret).sign(webhookId, at, payload)).join(' '),
  };
}

/** Epoch milliseconds with sub-millisecond resolution, comparable between the benchmark's processes. */
export const nowMs = (): number => performance.timeOrigin + performance.now();
