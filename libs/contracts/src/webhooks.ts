import { Type, type Static } from '@sinclair/typebox';
import { Nullable, pageOf, PageParams, StringEnum, Timestamp } from './common';
import {
  DELIVERY_ATTEMPT_OUTCOMES,
  DELIVERY_STATUSES,
  WEBHOOK_EVENT_TYPES,
  WEBHOOK_TEST_EVENT_TYPE,
  type DeliveryStatus,
  type WebhookEventType,
} from './values';

/** Webhook endpoints and their delivery log (docs/architecture.md#webhooks, and #the-public-api for the endpoints). */

/**
 * How an endpoint's deliveries are written: Postbus's own bodies with Standard Webhooks headers,
 * or Resend's or Postmark's bodies for code written against them (docs/webhook-formats.md).
 */
export const WEBHOOK_FORMATS = ['standard', 'resend', 'postmark'] as const;
export type WebhookFormat = (typeof WEBHOOK_FORMATS)[number];

const FORMAT_DESCRIPTION =
  "standard: Postbus's bodies, Standard Webhooks headers; resend: Resend's event names and bodies, Svix headers (svix-id, svix-timestamp, svix-signature); postmark: Postmark's record types and fields. Events a format has no counterpart for are not sent to it (docs/webhook-formats.md)";

// Enums rather than unions of literals, so that a bad value is answered with the allowed ones.
const EventSelector = Type.Unsafe<WebhookEventType | '*'>({
  type: 'string',
  enum: [...WEBHOOK_EVENT_TYPES, '*'],
  description: 'an event type, or * for all of them',
});

const DeliveryStatusSchema = Type.Unsafe<DeliveryStatus>({
  type: 'string',
  enum: [...DELIVERY_STATUSES],
  description: 'pending (being tried), succeeded, or failed (every attempt failed; retry it by hand)',
});

const WebhookId = Type.String({ pattern: '^we_[a-f0-9]{24}$' });
const DeliveryId = Type.String({ pattern: '^msg_[a-f0-9]{32}$', description: 'the webhook-id header of every attempt' });

const WebhookSettings = {
  url: Type.String({
    format: 'uri',
    maxLength: 2048,
    pattern: '^https?://',
    description: 'where events are POSTed; must resolve to a public address',
  }),
  events: Type.Array(EventSelector, { minItems: 1, uniqueItems: true, description: 'the event types to send, or ["*"]' }),
  project_id: Type.Optional(
    Nullable(Type.String({ pattern: '^[a-f0-9]{24}$', description: "only this project's events; null (the default) for all" })),
  ),
  description: Type.Optional(Nullable(Type.String({ maxLength: 256 }))),
  // No `default` here: the update schema shares it, and a PATCH must not turn an endpoint back on.
  enabled: Type.Optional(Type.Boolean({ description: 'true when created unless given' })),
  // Nor here: a PATCH must not turn an endpoint back to standard.
  format: Type.Optional(StringEnum(WEBHOOK_FORMATS, { description: `${FORMAT_DESCRIPTION}; standard when created unless given` })),
};

export const CreateWebhookRequest = Type.Object(WebhookSettings, { additionalProperties: false });
export type CreateWebhookRequest = Static<typeof CreateWebhookRequest>;

export const UpdateWebhookRequest = Type.Partial(Type.Object(WebhookSettings), { additionalProperties: false, minProperties: 1 });
export type UpdateWebhookRequest = Static<typeof UpdateWebhookRequest>;

export const WebhookIdParam = Type.Object({ webhookId: WebhookId });
export type WebhookIdParam = Static<typeof WebhookIdParam>;

export const DeliveryParams = Type.Object({ webhookId: WebhookId, deliveryId: DeliveryId });
export type DeliveryParams = Static<typeof DeliveryParams>;

const WebhookProperties = {
  id: Type.String(),
  url: Type.String(),
  events: Type.Array(Type.String()),
  project_id: Nullable(Type.String({ description: "only this project's events; null for all of the client's projects" })),
  description: Nullable(Type.String()),
  enabled: Type.Boolean(),
  format: StringEnum(WEBHOOK_FORMATS, { description: FORMAT_DESCRIPTION }),
  disabled_reason: Nullable(Type.String({ description: 'why the service disabled it (e.g. the receiver answered 410 Gone)' })),
  created_at: Timestamp,
  updated_at: Timestamp,
};

/** A webhook endpoint as every read shows it: never its secrets. */
export const Webhook = Type.Object(WebhookProperties);
export type Webhook = Static<typeof Webhook>;

/** The answer to create and rotate-secret: the only time the secret is shown. */
export const WebhookWithSecret = Type.Object({
  ...WebhookProperties,
  secret: Type.String({
    pattern: '^whsec_',
    description:
      'the signing secret (whsec_ and base64, as Standard Webhooks and Svix take it, e.g. `new Webhook(secret)`); shown only now',
  }),
});
export type WebhookWithSecret = Static<typeof WebhookWithSecret>;

export const WebhookList = Type.Object({ data: Type.Array(Webhook) });
export type WebhookList = Static<typeof WebhookList>;

export const DeliveryAttempt = Type.Object({
  attempt: Type.Integer({ minimum: 1 }),
  at: Timestamp,
  status_code: Nullable(Type.Integer()),
  latency_ms: Type.Integer({ minimum: 0 }),
  response: Nullable(Type.String({ description: 'the first bytes of the response body' })),
  error: Nullable(Type.String()),
  outcome: StringEnum(DELIVERY_ATTEMPT_OUTCOMES),
  /** When the next attempt is due, after a retrying one; otherwise null. */
  next_attempt_at: Nullable(Timestamp),
});
export type DeliveryAttempt = Static<typeof DeliveryAttempt>;

/** One event sent to one endpoint, with every attempt at it. */
export const Delivery = Type.Object({
  id: DeliveryId,
  event_id: Type.String(),
  event_type: StringEnum([...WEBHOOK_EVENT_TYPES, WEBHOOK_TEST_EVENT_TYPE]),
  status: DeliveryStatusSchema,
  created_at: Timestamp,
  payload: Type.Record(Type.String(), Type.Unknown(), { description: 'the body every attempt sends' }),
  attempts: Type.Array(DeliveryAttempt),
});
export type Delivery = Static<typeof Delivery>;

export const DeliveryList = pageOf(Delivery);
export type DeliveryList = Static<typeof DeliveryList>;

export const DeliveryListQuery = Type.Object(
  {
    status: Type.Optional(DeliveryStatusSchema),
    event_type: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
    ...PageParams,
  },
  { additionalProperties: false },
);
export type DeliveryListQuery = Static<typeof DeliveryListQuery>;

export const DeliveryRetryAccepted = Type.Object({ status: Type.Literal('scheduled'), delivery_id: DeliveryId });
export type DeliveryRetryAccepted = Static<typeof DeliveryRetryAccepted>;

export const WebhookTestAccepted = Type.Object({ delivery_id: DeliveryId });
export type WebhookTestAccepted = Static<typeof WebhookTestAccepted>;
