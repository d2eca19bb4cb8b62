import { Type, type Static } from '@sinclair/typebox';
import { Nullable, PageParams, StringEnum } from './common';
import { ERASURE_STATUSES } from './values';
import { MessageContent, SEND_BATCH_MAX } from './http';

/**
 * The internal APIs the gateway calls (services/gateway/src/clients): their paths, queries and
 * answers. Where the gateway forwards a public query as it is, the internal route takes the public
 * schema (MessageListQuery, DeliveryListQuery, …); these are the shapes only internal calls have.
 * Ids in paths are not checked against their public patterns: the gateway did, and an internal
 * API answers an id it does not know with 404 whatever its shape.
 */

const Id = Type.String({ minLength: 1 });

export const InternalProjectParams = Type.Object({ projectId: Id });
export const InternalMessageParams = Type.Object({ projectId: Id, messageId: Id });
export const InternalUserParams = Type.Object({ projectId: Id, userId: Id });
export const InternalErasureParams = Type.Object({ erasureId: Id });
export const InternalClientParams = Type.Object({ clientId: Id });
export const InternalWebhookParams = Type.Object({ clientId: Id, webhookId: Id });
export const InternalDeliveryParams = Type.Object({ clientId: Id, webhookId: Id, deliveryId: Id });

/**
 * A message's rendered email; `content: null` for one never rendered (the gateway tells it from an
 * unknown message). `test`: a test message (a test key reads no other).
 */
export const InternalMessageContent = Type.Object({ content: Nullable(MessageContent), test: Type.Optional(Type.Boolean()) });
export type InternalMessageContent = Static<typeof InternalMessageContent>;

/**
 * Which of some addresses a project's mail would not reach now, and why: the mailer's suppression
 * markers read by _id (a Postmark-compatible send answers 406 for a suppressed recipient at once).
 * At most one address per message of the largest batch.
 */
export const InternalSuppressionCheck = Type.Object(
  { emails: Type.Array(Type.String({ minLength: 1, maxLength: 254 }), { minItems: 1, maxItems: SEND_BATCH_MAX }) },
  { additionalProperties: false },
);
export type InternalSuppressionCheck = Static<typeof InternalSuppressionCheck>;

/** The suppressed ones among the addresses checked (normalised), each with its strongest reason; the others are not named. */
export const InternalSuppressedAddresses = Type.Object({
  data: Type.Array(Type.Object({ email: Type.String(), reason: Type.String() })),
});
export type InternalSuppressedAddresses = Static<typeof InternalSuppressedAddresses>;

/** A scheduled message's new time (the gateway has checked it is within a send_at's limits). */
export const InternalReschedule = Type.Object({ send_at: Type.String({ format: 'date-time' }) }, { additionalProperties: false });
export type InternalReschedule = Static<typeof InternalReschedule>;

/**
 * A person named by address or user id; each route says no to a query naming neither (a 400, with
 * the pointer /email), which a schema of optional parameters cannot state.
 */
const PersonRef = {
  email: Type.Optional(Type.String({ minLength: 1, maxLength: 254 })),
  user_id: Type.Optional(Type.String({ minLength: 1, maxLength: 128 })),
};

export const InternalUserLookupQuery = Type.Object({ email: Type.String({ minLength: 1, maxLength: 254 }) });

/** The payments of one person: the address may also be an erasure's pseudonym (`erased:<erasure id>`). */
export const InternalPaymentListQuery = Type.Object({ ...PersonRef, ...PageParams }, { additionalProperties: false });
export type InternalPaymentListQuery = Static<typeof InternalPaymentListQuery>;

export const InternalOpenErasureQuery = Type.Object(PersonRef, { additionalProperties: false });

/** The person's queued erasure, if any, and when an erasure accepted now would run (the erasure service owns the delay). */
export const OpenErasure = Type.Object({
  erasure: Nullable(Type.Object({ id: Type.String(), erase_at: Type.String({ format: 'date-time' }) })),
  erase_at_if_new: Type.String({ format: 'date-time' }),
});
export type OpenErasure = Static<typeof OpenErasure>;

/** The projects whose erasures the caller may see, comma-separated (the gateway's client owns them). */
const ProjectIds = Type.String({ pattern: '^[^,]+(,[^,]+)*$' });

export const InternalErasureListQuery = Type.Object(
  { status: Type.Optional(StringEnum(ERASURE_STATUSES)), project_ids: Type.Optional(ProjectIds), ...PageParams },
  { additionalProperties: false },
);
export type InternalErasureListQuery = Static<typeof InternalErasureListQuery>;

export const InternalErasureQuery = Type.Object({ project_ids: Type.Optional(ProjectIds) }, { additionalProperties: false });
