import { Type, type Static } from '@sinclair/typebox';
import { Nullable, StringEnum } from '../common';
import { ATTACHMENT_LIMITS, CONTENT_LIMITS, MESSAGE_OPTION_LIMITS, type MessageWebhookEvent } from '../values';

/**
 * Resend's email API, as Postbus takes it at the gateway's root (POST /emails, POST /emails/batch,
 * GET and PATCH /emails/{id}, POST /emails/{id}/cancel): its requests and answers, field for field
 * as Resend documents them, with Postbus's limits where they are narrower.
 * docs/moving-from-resend.md says what each field becomes in Postbus.
 */

/** The most emails one batch holds. */
export const RESEND_BATCH_MAX = 100;
/** The most addresses `to` holds. */
export const RESEND_TO_MAX = 50;
/** The most tags one email carries: each becomes a metadata pair. */
export const RESEND_TAGS_MAX = MESSAGE_OPTION_LIMITS.metadata;

/** Resend's error names (`name` of an error body), as its SDKs read them. */
export const RESEND_ERROR_NAMES = [
  'invalid_idempotency_key',
  'validation_error',
  'missing_api_key',
  'restricted_api_key',
  'invalid_api_key',
  'not_found',
  'method_not_allowed',
  'invalid_idempotent_request',
  'concurrent_idempotent_requests',
  'invalid_attachment',
  'invalid_from_address',
  'missing_required_field',
  'rate_limit_exceeded',
  'application_error',
] as const;
export type ResendErrorName = (typeof RESEND_ERROR_NAMES)[number];

/** What an email's `last_event` may say. */
export const RESEND_LAST_EVENTS = [
  'bounced',
  'canceled',
  'clicked',
  'complained',
  'delivered',
  'delivery_delayed',
  'failed',
  'opened',
  'queued',
  'scheduled',
  'sent',
  'suppressed',
] as const;
export type ResendLastEvent = (typeof RESEND_LAST_EVENTS)[number];

/**
 * Postbus's message events in Resend's words: an email's `last_event`, and `email.<word>` in
 * resend-format webhooks (docs/webhook-formats.md). Resend's `sent` is its API having taken the
 * email (Postbus's queued); its `delivered`, the receiving server having taken it (Postbus's sent).
 * A canceled message is a `last_event` only: Resend sends no webhook for it.
 */
export const RESEND_EVENT_OF: Record<MessageWebhookEvent, ResendLastEvent> = {
  scheduled: 'scheduled',
  queued: 'sent',
  sent: 'delivered',
  deferred: 'delivery_delayed',
  bounced: 'bounced',
  failed: 'failed',
  suppressed: 'suppressed',
  opened: 'opened',
  clicked: 'clicked',
  complained: 'complained',
  canceled: 'canceled',
};

const Mailbox = Type.String({
  minLength: 3,
  maxLength: 254 + CONTENT_LIMITS.fromNameLength + 3,
  pattern: '^[^\\r\\n]+$',
  description: 'an address, or `Name <address>`',
  examples: ['Ada Lovelace <ada@example.com>'],
});

const Mailboxes = (description: string, maxItems: number, minItems = 0) =>
  Type.Union([Mailbox, Type.Array(Mailbox, { minItems, maxItems })], { description });

export const ResendAttachment = Type.Object(
  {
    filename: Type.Optional(
      Type.String({ minLength: 1, maxLength: ATTACHMENT_LIMITS.filenameLength, description: "the file's name", examples: ['invoice.pdf'] }),
    ),
    content: Type.Optional(
      Type.Union([Type.String(), Type.Array(Type.Unknown())], {
        description:
          'the file: base64 (as the Node SDK sends a Buffer), or its bytes as a list of integers 0 to 255 (as the Python SDK documents `list(f.read())`)',
      }),
    ),
    path: Type.Optional(Type.String({ maxLength: 2048, description: 'not offered: Postbus fetches no URL; send the content' })),
    content_type: Type.Optional(
      Type.String({ maxLength: 127, description: "its media type; by default the one its name's extension stands for" }),
    ),
    content_id: Type.Optional(
      Type.String({
        maxLength: ATTACHMENT_LIMITS.contentIdLength,
        description: 'makes it an inline part, shown where the HTML says cid:<content_id>',
        examples: ['logo'],
      }),
    ),
    inline_content_id: Type.Optional(Type.String({ maxLength: ATTACHMENT_LIMITS.contentIdLength, description: 'the same as content_id' })),
  },
  { additionalProperties: false },
);
export type ResendAttachment = Static<typeof ResendAttachment>;

export const ResendTag = Type.Object(
  {
    name: Type.String({
      pattern: `^[A-Za-z0-9_-]{1,${MESSAGE_OPTION_LIMITS.metadataKeyLength}}$`,
      description: `ASCII letters, digits, _ and -, at most ${MESSAGE_OPTION_LIMITS.metadataKeyLength} characters (Resend allows 256): the metadata key`,
      examples: ['category'],
    }),
    value: Type.Optional(
      Type.String({
        pattern: '^[A-Za-z0-9_-]{0,256}$',
        description: 'ASCII letters, digits, _ and -, at most 256 characters: the metadata value',
        examples: ['confirm_email'],
      }),
    ),
  },
  { additionalProperties: false },
);
export type ResendTag = Static<typeof ResendTag>;

export const ResendTemplate = Type.Object(
  {
    id: Type.String({
      minLength: 1,
      maxLength: 64,
      description: "the Postbus email's key (e.g. welcome) or id, whose template is rendered",
    }),
    variables: Type.Optional(
      Type.Record(Type.String({ minLength: 1, maxLength: 128 }), Type.Union([Type.String(), Type.Number()]), {
        maxProperties: 100,
        description: "the template's data (Postbus's `data`, read as {{data.<name>}})",
      }),
    ),
  },
  { additionalProperties: false },
);
export type ResendTemplate = Static<typeof ResendTemplate>;

const ScheduledAt = Type.String({
  minLength: 1,
  maxLength: 64,
  description: 'when to send it, up to 30 days ahead: ISO 8601 with a time zone (2026-08-05T11:52:01Z), or "in <n> <minutes|hours|days>"',
  examples: ['2026-08-05T11:52:01.858Z', 'in 1 hour'],
});

const SendFields = {
  from: Type.Optional(
    Type.String({
      ...Mailbox,
      description:
        "the sender, an address or `Name <address>` on the project's verified sender domain; required unless `template` is given",
    }),
  ),
  to: Mailboxes(
    `1 to ${RESEND_TO_MAX} recipients: the first is the message's recipient, the others are copies shown beside it (at most 50 addresses across to, cc and bcc)`,
    RESEND_TO_MAX,
    1,
  ),
  subject: Type.Optional(Type.String({ maxLength: CONTENT_LIMITS.subjectLength, description: 'required unless `template` is given' })),
  html: Type.Optional(
    Type.String({ maxLength: CONTENT_LIMITS.htmlBytes, description: 'the HTML body: html, text or both, unless `template`' }),
  ),
  text: Type.Optional(Type.String({ maxLength: CONTENT_LIMITS.textBytes, description: 'the plain-text body' })),
  cc: Type.Optional(Mailboxes('addresses the email is copied to', MESSAGE_OPTION_LIMITS.copies)),
  bcc: Type.Optional(Mailboxes('addresses the email is blind-copied to', MESSAGE_OPTION_LIMITS.copies)),
  reply_to: Type.Optional(Mailboxes('the reply address: one (Postbus keeps one Reply-To)', 1)),
  headers: Type.Optional(
    Type.Record(Type.String(), Type.String(), {
      maxProperties: MESSAGE_OPTION_LIMITS.headers,
      description: "custom headers, as a /v1 send's headers (the reserved ones are refused)",
    }),
  ),
  tags: Type.Optional(
    Type.Array(ResendTag, {
      maxItems: RESEND_TAGS_MAX,
      description: "each tag becomes a pair of the message's metadata (name → value), carried in its reads and webhooks",
    }),
  ),
  scheduled_at: Type.Optional(ScheduledAt),
  template: Type.Optional(ResendTemplate),
};

/** POST /emails. */
export const ResendSendRequest = Type.Object(
  {
    ...SendFields,
    attachments: Type.Optional(
      Type.Array(ResendAttachment, {
        maxItems: ATTACHMENT_LIMITS.count,
        description: `at most ${ATTACHMENT_LIMITS.count} files, at most ${ATTACHMENT_LIMITS.totalBytes / 1024 / 1024} MB together`,
      }),
    ),
  },
  { additionalProperties: false },
);
export type ResendSendRequest = Static<typeof ResendSendRequest>;

/** One email of POST /emails/batch: a send without attachments, as Resend's batch takes it. */
export const ResendBatchItem = Type.Object(SendFields, { additionalProperties: false });
export type ResendBatchItem = Static<typeof ResendBatchItem>;

/** POST /emails/batch: a bare list; each email is checked on its own (strict: one bad email refuses them all). */
export const ResendBatchRequest = Type.Array(Type.Record(Type.String(), Type.Unknown()), {
  minItems: 1,
  maxItems: RESEND_BATCH_MAX,
  description: `1 to ${RESEND_BATCH_MAX} emails, each as POST /emails takes it but without attachments`,
});

/** The batch's `x-batch-validation` header. */
export const RESEND_BATCH_VALIDATION = ['strict', 'permissive'] as const;

/** PATCH /emails/{id}: a scheduled email's new time (Resend's Python SDK sends the id too). */
export const ResendUpdateRequest = Type.Object(
  { scheduled_at: ScheduledAt, id: Type.Optional(Type.String({ description: "the email's id again, as the path names it" })) },
  { additionalProperties: false },
);
export type ResendUpdateRequest = Static<typeof ResendUpdateRequest>;

export const ResendEmailParams = Type.Object({
  emailId: Type.String({ minLength: 1, maxLength: 64, description: 'the id POST /emails answered' }),
});

export const ResendSendResponse = Type.Object({ id: Type.String({ description: 'the message id (msg_…)' }) });
export type ResendSendResponse = Static<typeof ResendSendResponse>;

export const ResendBatchResponse = Type.Object({
  data: Type.Array(ResendSendResponse, { description: 'the emails sent: all of them, in order, in strict mode' }),
  errors: Type.Optional(
    Type.Array(Type.Object({ index: Type.Integer({ minimum: 0 }), message: Type.String() }), {
      description: 'permissive mode: the emails refused, by their place in the request',
    }),
  ),
});
export type ResendBatchResponse = Static<typeof ResendBatchResponse>;

/** The answer of PATCH /emails/{id} and POST /emails/{id}/cancel. */
export const ResendEmailRef = Type.Object({ object: Type.Literal('email'), id: Type.String() });
export type ResendEmailRef = Static<typeof ResendEmailRef>;

const Addresses = Nullable(Type.Array(Type.String()));

/** GET /emails/{id}. */
export const ResendEmail = Type.Object({
  object: Type.Literal('email'),
  id: Type.String(),
  to: Type.Array(Type.String(), { description: 'the recipient, then the further to addresses' }),
  from: Type.String({ description: 'the sender as the send gave it; empty when Postbus does not know it yet' }),
  created_at: Type.String({ format: 'date-time', description: 'when the send was accepted' }),
  subject: Type.String(),
  html: Nullable(Type.String({ description: 'the HTML as rendered, before tracking; null until it is rendered' })),
  text: Nullable(Type.String()),
  cc: Addresses,
  bcc: Addresses,
  reply_to: Addresses,
  last_event: StringEnum(RESEND_LAST_EVENTS, { description: "the message's latest event (docs/moving-from-resend.md has the mapping)" }),
  scheduled_at: Nullable(Type.String({ format: 'date-time' })),
  tags: Type.Array(Type.Object({ name: Type.String(), value: Type.String() }), { description: "the message's metadata pairs" }),
});
export type ResendEmail = Static<typeof ResendEmail>;

/** Every error, as Resend's SDKs read it. */
export const ResendError = Type.Object({
  statusCode: Type.Integer(),
  message: Type.String(),
  name: StringEnum(RESEND_ERROR_NAMES),
});
export type ResendError = Static<typeof ResendError>;
