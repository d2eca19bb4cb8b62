import { Type, type Static } from '@sinclair/typebox';
import { Email, Nullable, ObjectIdString, pageOf, PageParams, StringEnum, Timestamp, UserId } from './common';
import { ERASURE_STATUSES } from './values';

/**
 * GDPR erasure (docs/architecture.md#erasure). The gateway sends `erasure.request`; the erasure service schedules it
 * (`user.erasure_scheduled`), and when it is due sends `erasure.execute`, all on the erasure events topic;
 * every service holding user data deletes (or irreversibly anonymises) it and answers
 * `erasure.confirmed`; once all have, the erasure service emits `user.erased`, which names no one.
 */

/** The services that hold user data and must confirm an erasure before it is complete. */
export const ERASURE_PARTICIPANTS = ['users', 'mailer', 'payments', 'webhook-dispatcher'] as const;
export type ErasureParticipant = (typeof ERASURE_PARTICIPANTS)[number];

const BusUserRef = Type.Object(
  { email: Type.Optional(Type.String()), userId: Type.Optional(Type.String()) },
  { additionalProperties: false, anyOf: [{ required: ['email'] }, { required: ['userId'] }] },
);

/** Who an erasure is about, as the erasure service resolved it; any of them may be unknown. */
const ErasureSubject = {
  erasureId: Type.String(),
  projectId: Type.String(),
  /** The users service's id of the user, when known. */
  id: Nullable(Type.String()),
  email: Nullable(Type.String()),
  userId: Nullable(Type.String()),
};

export const ErasureRequestCommand = Type.Object({
  erasureId: Type.String({ description: 'chosen by the gateway; a repeat for a user already queued keeps the first' }),
  projectId: Type.String(),
  user: BusUserRef,
  acceptedAt: Timestamp,
  eraseAt: Timestamp,
});
export type ErasureRequestCommand = Static<typeof ErasureRequestCommand>;

export const UserErasureScheduledEvent = Type.Object({ ...ErasureSubject, requestedAt: Timestamp, eraseAt: Timestamp });
export type UserErasureScheduledEvent = Static<typeof UserErasureScheduledEvent>;

/**
 * Sent when the erasure is due, again every lease while some participant has not confirmed, and
 * once more a while after it completed (a sweep for what in-flight work wrote after the first pass).
 */
export const ErasureExecuteCommand = Type.Object({
  ...ErasureSubject,
  before: Type.String({
    format: 'date-time',
    description:
      'when the erasure ran: what was accepted or recorded up to then is the person’s; later data (a new user with the same address) is left alone',
  }),
});
export type ErasureExecuteCommand = Static<typeof ErasureExecuteCommand>;

export const ErasureConfirmedEvent = Type.Object({
  erasureId: Type.String(),
  projectId: Type.String(),
  service: Type.String(),
  /** What the service removed, by kind: counts only. */
  erased: Type.Record(Type.String(), Type.Integer({ minimum: 0 })),
});
export type ErasureConfirmedEvent = Static<typeof ErasureConfirmedEvent>;

/** The erasure is complete; deliberately without any identifier of the person. */
export const UserErasedEvent = Type.Object({
  erasureId: Type.String(),
  projectId: Type.String(),
  requestedAt: Timestamp,
  eraseAt: Timestamp,
  completedAt: Timestamp,
});
export type UserErasedEvent = Static<typeof UserErasedEvent>;

// HTTP

export const EraseRequest = Type.Object(
  { email: Type.Optional(Email), user_id: Type.Optional(UserId) },
  { additionalProperties: false, anyOf: [{ required: ['email'] }, { required: ['user_id'] }] },
);
export type EraseRequest = Static<typeof EraseRequest>;

export const EraseAccepted = Type.Object({
  status: Type.Literal('accepted'),
  request_id: Type.String(),
  erasure_id: Type.String(),
  erase_at: Timestamp,
});
export type EraseAccepted = Static<typeof EraseAccepted>;

const ErasureStatusSchema = StringEnum(ERASURE_STATUSES);

/** An erasure request as operators see it: the audit record, which holds no personal data. */
export const Erasure = Type.Object({
  id: Type.String(),
  project_id: Type.String(),
  status: ErasureStatusSchema,
  requested_at: Timestamp,
  erase_at: Timestamp,
  executed_at: Nullable(Timestamp),
  completed_at: Nullable(Timestamp),
  email_hmac: Nullable(Type.String({ description: 'HMAC-SHA256 (hex) of the normalised email under the erasure audit key' })),
  confirmed_by: Type.Array(Type.String()),
  waiting_for: Type.Array(Type.String()),
});
export type Erasure = Static<typeof Erasure>;

export const ErasureList = pageOf(Erasure);
export type ErasureList = Static<typeof ErasureList>;

export const ErasureListQuery = Type.Object(
  {
    status: Type.Optional(ErasureStatusSchema),
    project_id: Type.Optional(ObjectIdString),
    ...PageParams,
  },
  { additionalProperties: false },
);
export type ErasureListQuery = Static<typeof ErasureListQuery>;

export const ErasureParams = Type.Object({ erasureId: Type.String({ pattern: '^era_[a-f0-9]{32}$' }) });
