import { serialiseWebhookBody, type WebhookBody, type WebhookFormat } from '@postbus/contracts';
import type { SignatureHeaders } from './ports';
import { POSTMARK_EVENT_TYPES, postmarkBody } from './postmark-format';
import { RESEND_EVENT_TYPES, resendBody } from './resend-format';

/** Resend's webhooks go through Svix: its headers. Postmark signs none: Postbus's own stay, for a receiver that wants them. */
export const signatureHeadersOf = (format: WebhookFormat): SignatureHeaders => (format === 'resend' ? 'svix' : 'standard-webhooks');

/** The bytes an endpoint of this format gets for a Postbus body, or null when the format has no counterpart for it. */
export function bodyIn(format: WebhookFormat, body: WebhookBody): string | null {
  switch (format) {
    case 'standard':
      return serialiseWebhookBody(body);
    case 'resend': {
      const written = resendBody(body);
      return written && JSON.stringify(written);
    }
    case 'postmark': {
      const written = postmarkBody(body);
      return written && JSON.stringify(written);
    }
  }
}

const COUNTERPARTS: Record<Exclude<WebhookFormat, 'standard'>, readonly string[]> = {
  resend: RESEND_EVENT_TYPES,
  postmark: POSTMARK_EVENT_TYPES,
};

/** The event types an endpoint of this format names that the format has no counterpart for (it would never get them). */
export function eventsWithoutCounterpart(format: WebhookFormat, events: readonly string[]): string[] {
  if (format === 'standard') return [];
  return events.filter((event) => event !== '*' && !COUNTERPARTS[format].includes(event));
}
