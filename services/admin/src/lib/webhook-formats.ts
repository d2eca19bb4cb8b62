import type { WebhookFormat } from '../api/types';

/** How the panel names a webhook format: what its deliveries carry, and what its receiver verifies them with (docs/webhook-formats.md). */
export interface WebhookFormatText {
  name: string;
  carries: string;
  verify: string;
}

// A Record over the API's type, so that a format the API gains and the panel does not name fails the build.
export const WEBHOOK_FORMAT_TEXTS: Record<WebhookFormat, WebhookFormatText> = {
  standard: {
    name: 'Standard Webhooks',
    carries: "Postbus's bodies",
    verify: 'Verify with any Standard Webhooks library and the signing secret.',
  },
  resend: {
    name: 'Resend',
    carries: "Resend's events, Svix headers",
    verify: 'Verify with svix or resend.webhooks.verify and the same signing secret.',
  },
  postmark: {
    name: 'Postmark',
    carries: "Postmark's record types",
    verify: "Unsigned by Postmark, but Postbus's webhook-* headers are there: verify them with any Standard Webhooks library.",
  },
};

/** The formats in the order the panel offers them, standard (the API's default) first. */
export const WEBHOOK_FORMAT_CHOICES = Object.keys(WEBHOOK_FORMAT_TEXTS) as WebhookFormat[];

/** A format's one-line summary: "Resend — Resend's events, Svix headers". */
export const describeWebhookFormat = (format: WebhookFormat): string =>
  `${WEBHOOK_FORMAT_TEXTS[format].name} — ${WEBHOOK_FORMAT_TEXTS[format].carries}`;
