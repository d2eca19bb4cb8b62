import { RESEND_EVENT_OF, type MessageWebhookEvent, type SuppressionReason, type WebhookBody } from '@postbus/contracts';
import { acceptedAtOf, isMessageBody, relayAnswerOf, type MessageBody, type SuppressionBody } from './format-inputs';

/**
 * Postbus's webhook bodies as Resend writes its own: `{type, created_at, data}` with Resend's event
 * names and `data` fields (docs/webhook-formats.md has the table, and what has no counterpart).
 */

/** Resend's email events: the fields every one carries that Postbus knows (Resend's `from`, `subject` and `message_id` it does not). */
interface ResendEmailData {
  email_id: string;
  /** When the send was accepted. */
  created_at: string;
  to: string[];
  template_id?: string;
  tags?: Record<string, string>;
  bounce?: { message: string; type: string; subType: string };
  click?: { link: string; timestamp: string };
  failed?: { reason: string };
  suppressed?: { message: string; type: string };
}

interface ResendSuppressionData {
  email: string;
  origin: 'bounce' | 'complaint' | 'manual';
  /** The email whose bounce or complaint caused it. */
  source_id: string | null;
  created_at: string;
}

export interface ResendBody {
  type: string;
  created_at: string;
  data: ResendEmailData | ResendSuppressionData | { webhook_id: string };
}

/** A canceled message has a `last_event` in Resend, but no webhook. */
const NO_WEBHOOK = new Set<string>(['canceled']);

/** Postbus's message events by Resend's webhook name (RESEND_EVENT_OF); the ones missing have no counterpart. */
const EMAIL_EVENTS: Partial<Record<MessageWebhookEvent, string>> = Object.fromEntries(
  Object.entries(RESEND_EVENT_OF)
    .filter(([event]) => !NO_WEBHOOK.has(event))
    .map(([event, word]) => [event, `email.${word}`]),
);

/** Resend's suppression list holds bounces, complaints and the account's own entries; an unsubscribe is not one of them. */
const ORIGINS: Partial<Record<SuppressionReason, ResendSuppressionData['origin']>> = {
  hard_bounce: 'bounce',
  soft_bounce_limit: 'bounce',
  complaint: 'complaint',
  manual: 'manual',
};

/** The Postbus event types a resend-format endpoint can get (some only for some of their events). */
export const RESEND_EVENT_TYPES: readonly string[] = [
  ...Object.keys(EMAIL_EVENTS).map((event) => `message.${event}`),
  'suppression.created',
  'suppression.deleted',
];

function emailBody({ type, timestamp, data }: MessageBody): ResendBody | null {
  const resendType = EMAIL_EVENTS[data.event];
  if (resendType === undefined) return null;
  const reason = relayAnswerOf(data);
  const email: ResendEmailData = {
    email_id: data.message_id,
    created_at: acceptedAtOf(data.message_id) ?? timestamp,
    to: [data.email],
    ...(data.email_key !== null ? { template_id: data.email_key } : {}),
    ...(Object.keys(data.metadata).length > 0 ? { tags: data.metadata } : {}),
  };
  if (type === 'message.bounced') email.bounce = { message: reason, type: 'Permanent', subType: 'General' };
  if (type === 'message.clicked' && data.url !== undefined) email.click = { link: data.url, timestamp };
  if (type === 'message.failed') email.failed = { reason };
  if (type === 'message.suppressed') email.suppressed = { message: reason, type: 'OnAccountSuppressionList' };
  return { type: resendType, created_at: timestamp, data: email };
}

function suppressionBody(body: SuppressionBody): ResendBody | null {
  const origin = ORIGINS[body.data.reason];
  if (origin === undefined) return null;
  return {
    type: body.type === 'suppression.created' ? 'suppression.added' : 'suppression.removed',
    created_at: body.timestamp,
    data: { email: body.data.email, origin, source_id: body.data.message_id, created_at: body.data.created_at },
  };
}

/** The body a resend-format endpoint gets for this event, or null when Resend has no counterpart. */
export function resendBody(body: WebhookBody): ResendBody | null {
  if (isMessageBody(body)) return emailBody(body);
  switch (body.type) {
    case 'suppression.created':
    case 'suppression.deleted':
      return suppressionBody(body);
    case 'webhook.test':
      return { type: body.type, created_at: body.timestamp, data: body.data };
    case 'user.unsubscribed':
    case 'user.update_rejected':
    case 'user.erasure_scheduled':
    case 'user.erased':
      return null;
  }
}
