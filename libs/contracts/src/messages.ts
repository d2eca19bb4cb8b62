import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { Nullable, StringEnum, Timestamp } from './common';
import { GatewayUsageReport, KeyRevokedEvent } from './auth';
import { CopyPosition, FeedbackBounceEvent, FeedbackComplaintEvent, FeedbackUnsubscribeEvent, InboundReceivedEvent } from './feedback';
import { ErasureConfirmedEvent, ErasureExecuteCommand, ErasureRequestCommand, UserErasedEvent, UserErasureScheduledEvent } from './erasure';
import { PaymentRecordCommand, PaymentRecordedEvent, PaymentRejectedEvent } from './payments';
import { SUPPRESSION_REASONS, TIMELINE_EVENTS, USER_UPDATE_REJECTED_REASONS } from './values';

/**
 * Bus messages: the `data` of a CloudEvent, one schema per `ce_type`. Emails in commands are
 * already normalised (trimmed, lower-cased) by the producer.
 */

const UserRef = Type.Object(
  { email: Type.Optional(Type.String()), userId: Type.Optional(Type.String()) },
  { additionalProperties: false, anyOf: [{ required: ['email'] }, { required: ['userId'] }] },
);
export type UserRef = Static<typeof UserRef>;

const Fields = Type.Record(Type.String(), Type.Unknown());

export const UserCreateCommand = Type.Object({
  projectId: Type.String(),
  email: Type.String(),
  userId: Type.Optional(Type.String()),
  fields: Type.Optional(Fields),
});
export type UserCreateCommand = Static<typeof UserCreateCommand>;

export const UserUpdateCommand = Type.Object({
  projectId: Type.String(),
  user: UserRef,
  fields: Fields,
  /** When the gateway accepted it; an update still finding no user after the retry window is rejected. */
  acceptedAt: Timestamp,
});
export type UserUpdateCommand = Static<typeof UserUpdateCommand>;

export const UserUnsubscribeCommand = Type.Object({
  projectId: Type.String(),
  user: UserRef,
  reason: Type.Optional(Type.String()),
  acceptedAt: Timestamp,
});
export type UserUnsubscribeCommand = Static<typeof UserUnsubscribeCommand>;

/** The client lifted a user's unsubscribe, asserting the recipient's consent (a DELETE of the suppression). */
export const UserResubscribeCommand = Type.Object({
  projectId: Type.String(),
  user: UserRef,
  acceptedAt: Timestamp,
});
export type UserResubscribeCommand = Static<typeof UserResubscribeCommand>;

const UserEventBase = {
  projectId: Type.String(),
  id: Type.String({ description: "the users service's id of the user" }),
  userId: Nullable(Type.String()),
};

export const UserCreatedEvent = Type.Object({ ...UserEventBase, email: Type.String() });
export const UserUpdatedEvent = Type.Object({ ...UserEventBase, changed: Type.Array(Type.String()) });
export const UserUnsubscribedEvent = Type.Object({
  ...UserEventBase,
  email: Type.String(),
  reason: Nullable(Type.String()),
  unsubscribedAt: Timestamp,
});
export const UserUpdateRejectedEvent = Type.Object({
  projectId: Type.String(),
  user: UserRef,
  command: Type.String({ description: 'the ce_type of the rejected command' }),
  commandId: Type.String(),
  reason: Type.Union(USER_UPDATE_REJECTED_REASONS.map((reason) => Type.Literal(reason))),
});

/** An accepted trigger: the mailer renders and sends it; the users service registers an unknown user. */
/** An attachment as the trigger names it: its bytes are stored under `<messageId>:<position>` (see the mailer's AttachmentStore). */
export const AttachmentRef = Type.Object({
  filename: Type.String(),
  contentType: Type.String(),
  size: Type.Integer({ minimum: 0 }),
  /** Hex SHA-256 of the bytes, checked when they are read back to send. */
  sha256: Type.String(),
  contentId: Type.Optional(Type.String()),
});
export type AttachmentRef = Static<typeof AttachmentRef>;

/**
 * What a content send brings instead of an email's template: its subject and bodies as sent (no
 * template is applied), its sender when it names one (checked by the gateway to be on the
 * project's verified sender domain), and its tracking.
 */
export const SendContent = Type.Object({
  subject: Type.String(),
  html: Type.Optional(Type.String()),
  text: Type.Optional(Type.String()),
  /** Normalised; absent: the project's from_email. */
  fromEmail: Type.Optional(Type.String()),
  /** Absent: the project's from_name (or none, when fromEmail is given without a name). */
  fromName: Type.Optional(Nullable(Type.String())),
  trackOpens: Type.Boolean(),
  trackClicks: Type.Boolean(),
});
export type SendContent = Static<typeof SendContent>;

export const EmailTriggerCommand = Type.Object({
  messageId: Type.String(),
  projectId: Type.String(),
  /** The stored email and template a template send names; absent for a content send, which carries `content`. */
  emailId: Type.Optional(Type.String()),
  emailKey: Type.Optional(Type.String()),
  templateId: Type.Optional(Type.String()),
  templateVersion: Type.Optional(Type.Integer()),
  /** The template's catalog revision the gateway saw: the mailer waits for its projection to have caught up with it. */
  templateRevision: Type.Optional(Type.Integer()),
  /** The send named the language variant (BCP 47). */
  language: Type.Optional(Type.String()),
  content: Type.Optional(SendContent),
  /** Where the send came from; absent: the HTTP API. */
  source: Type.Optional(Type.Literal('smtp')),
  /** A content send that named no user: the recipient is not registered (nor updated). */
  unregistered: Type.Optional(Type.Literal(true)),
  /** A content send's further To addresses (normalised), shown in the To header beside the recipient's. */
  to: Type.Optional(Type.Array(Type.String())),
  /** The user as the trigger described them: email (normalised), user_id, standard attributes, custom fields. */
  user: Type.Record(Type.String(), Type.Unknown()),
  data: Type.Record(Type.String(), Type.Unknown()),
  acceptedAt: Timestamp,
  /** The send's options (the API's reply_to, headers, tags, metadata), as the gateway validated them. */
  replyTo: Type.Optional(Type.String()),
  headers: Type.Optional(Type.Record(Type.String(), Type.String())),
  tags: Type.Optional(Type.Array(Type.String())),
  metadata: Type.Optional(Type.Record(Type.String(), Type.String())),
  /**
   * The send's attachments, in order: what they are, not their content, which the gateway stored
   * with the mailer (under the message id and the position) before it published the trigger.
   */
  attachments: Type.Optional(Type.Array(AttachmentRef)),
  /** A scheduled send: when it goes (the API's send_at, checked by the gateway to be at most 30 days ahead). */
  sendAt: Type.Optional(Timestamp),
  /** Sent with a test key: rendered and recorded, its outcome simulated, never relayed; no user is registered. */
  test: Type.Optional(Type.Literal(true)),
  /** Normalised; the gateway checked their count and that none repeats. */
  cc: Type.Optional(Type.Array(Type.String())),
  bcc: Type.Optional(Type.Array(Type.String())),
});
export type EmailTriggerCommand = Static<typeof EmailTriggerCommand>;

/**
 * An erase request accepted by the gateway, put on the email commands under the person's ordering
 * key(s) before the erase is answered: the mailer suppresses the person before it handles any
 * trigger accepted after the erase (the erasure service's announcement comes by a longer road).
 */
export const EmailErasureRequestedCommand = Type.Object({
  erasureId: Type.String(),
  projectId: Type.String(),
  /** Normalised; null when the erase named only a user_id the gateway could not resolve. */
  email: Nullable(Type.String()),
  userId: Nullable(Type.String()),
  requestedAt: Timestamp,
});
export type EmailErasureRequestedCommand = Static<typeof EmailErasureRequestedCommand>;

/** The client suppressed an address for every email of the project (`manual`), among the person's email commands. */
export const EmailSuppressCommand = Type.Object({
  projectId: Type.String(),
  /** Normalised. */
  email: Type.String(),
  acceptedAt: Timestamp,
});
export type EmailSuppressCommand = Static<typeof EmailSuppressCommand>;

/** The client lifted an address's suppression (a hard or soft bounce, or its own): a later trigger sends again. */
export const EmailUnsuppressCommand = Type.Object({
  projectId: Type.String(),
  /** Normalised. */
  email: Type.String(),
  acceptedAt: Timestamp,
  /** The suppression is an unsubscribe, and the client asserts the recipient's consent: the user is subscribed again. */
  resubscribe: Type.Optional(Type.Boolean()),
});
export type EmailUnsuppressCommand = Static<typeof EmailUnsuppressCommand>;

/**
 * An address entered or left a project's suppression list (`suppression.created`,
 * `suppression.deleted`), as the mailer, which keeps the list, announces it. An erasure's removals
 * are not announced: the announcement would name the person again.
 */
export const SuppressionChangedEvent = Type.Object({
  projectId: Type.String(),
  /** Normalised. */
  email: Type.String(),
  reason: StringEnum(SUPPRESSION_REASONS),
  createdAt: Timestamp,
  /** The message whose bounce or complaint caused it. */
  messageId: Nullable(Type.String()),
  /** deleted: when it was lifted. */
  deletedAt: Type.Optional(Timestamp),
});
export type SuppressionChangedEvent = Static<typeof SuppressionChangedEvent>;

/** The most marker keys one `suppression.marked` carries: a larger set is announced in several. */
export const MAX_MARKER_KEYS_PER_EVENT = 10_000;

/**
 * Bus: marker keys a mailer stored (`<project>:<hash of an address or user id>`, never the
 * address itself): every mailer instance adds them to its filter of the markers, which lets it
 * skip the point read of an address that has none (see the mailer's MarkerFilter).
 */
export const SuppressionMarkedEvent = Type.Object({
  keys: Type.Array(Type.String({ minLength: 1, maxLength: 300 }), { minItems: 1, maxItems: MAX_MARKER_KEYS_PER_EVENT }),
});
export type SuppressionMarkedEvent = Static<typeof SuppressionMarkedEvent>;

/**
 * The catalog as the gateway publishes it: each change carries the entity's whole current state
 * and a `revision` (its last change, epoch ms) so that a projection keeps the newest copy whatever
 * order copies arrive in (a periodic full republish repairs any publish that failed).
 */
const CatalogBase = {
  id: Type.String(),
  clientId: Type.String(),
  revision: Type.Integer({ description: 'when the entity last changed, epoch ms' }),
};

export const CatalogProject = Type.Object({
  ...CatalogBase,
  name: Type.String(),
  fromEmail: Nullable(Type.String()),
  fromName: Nullable(Type.String()),
  replyTo: Nullable(Type.String()),
  senderDomainId: Nullable(Type.String()),
  trackingDomainId: Nullable(Type.String()),
});
export type CatalogProject = Static<typeof CatalogProject>;

/** A secret sealed with AES-256-GCM under SECRETS_KEY; only services holding that key can open it. */
export const SealedSecret = Type.Object({ iv: Type.String(), tag: Type.String(), data: Type.String() });

export const CatalogDomain = Type.Object({
  ...CatalogBase,
  kind: Type.Union([Type.Literal('sender'), Type.Literal('tracking')]),
  domain: Type.String(),
  status: Type.Union([Type.Literal('pending'), Type.Literal('verified'), Type.Literal('failed')]),
  /** Sender domains: the DKIM selector and the sealed private key. */
  dkim: Nullable(Type.Object({ selector: Type.String(), privateKey: SealedSecret })),
});
export type CatalogDomain = Static<typeof CatalogDomain>;

/** One language's parts of a template version. */
export const CatalogTemplateVariant = Type.Object({
  language: Type.String(),
  subject: Type.String(),
  html: Type.String(),
  text: Nullable(Type.String()),
  layoutId: Nullable(Type.String()),
});
export type CatalogTemplateVariant = Static<typeof CatalogTemplateVariant>;

export const CatalogTemplate = Type.Object({
  ...CatalogBase,
  projectId: Type.String(),
  name: Type.String(),
  version: Type.Integer({ description: 'the published version; its parts follow' }),
  subject: Type.String(),
  html: Type.String(),
  text: Nullable(Type.String()),
  /** Absent: handlebars. */
  format: Type.Optional(Type.Literal('mjml')),
  /** The layout around the default parts; absent: none. */
  layoutId: Type.Optional(Type.String()),
  /** Absent: the default parts only. */
  variants: Type.Optional(Type.Array(CatalogTemplateVariant)),
  /**
   * Measured when this version was saved (compiled and rendered with every value present and every
   * list of 10 items): true fits a service's inline budget, false is rendered in a worker thread
   * from the first send; absent when it was not measured (saved before, or not measurable).
   */
  cheap: Type.Optional(Type.Boolean()),
});
export type CatalogTemplate = Static<typeof CatalogTemplate>;

export const CatalogEmail = Type.Object({
  ...CatalogBase,
  projectId: Type.String(),
  key: Type.String(),
  name: Type.String(),
  templateId: Type.String(),
  trackOpens: Type.Boolean(),
  trackClicks: Type.Boolean(),
  sendToUnsubscribed: Type.Boolean(),
  fromEmail: Nullable(Type.String()),
  fromName: Nullable(Type.String()),
  replyTo: Nullable(Type.String()),
});
export type CatalogEmail = Static<typeof CatalogEmail>;

/** A layout's published version: the html (and text) around the bodies of the templates that name it. */
export const CatalogLayout = Type.Object({
  ...CatalogBase,
  projectId: Type.String(),
  version: Type.Integer({ description: 'the published version; its parts follow' }),
  html: Type.String(),
  text: Nullable(Type.String()),
});
export type CatalogLayout = Static<typeof CatalogLayout>;

export const CatalogKind = Type.Union([
  Type.Literal('project'),
  Type.Literal('domain'),
  Type.Literal('template'),
  Type.Literal('email'),
  Type.Literal('layout'),
]);
export type CatalogKind = Static<typeof CatalogKind>;

/** The deletion marker of an entity; compaction keeps it as the entity's last word. */
export const CatalogDeleted = Type.Object({ kind: CatalogKind, id: Type.String(), clientId: Type.String(), revision: Type.Integer() });
export type CatalogDeleted = Static<typeof CatalogDeleted>;

/** The Kafka key of a catalog entity on the compacted topic. */
export const catalogKey = (kind: CatalogKind, id: string): string => `${kind}:${id}`;

/** One entry of a message's timeline, as the mailer emits it (`message.<event>`). */
export const MessageEvent = Type.Object({
  messageId: Type.String(),
  projectId: Type.String(),
  /** The email a template send named; null for a content send. */
  emailKey: Nullable(Type.String()),
  email: Type.String(),
  userId: Nullable(Type.String()),
  event: StringEnum(TIMELINE_EVENTS, { description: 'a delivery status or an engagement event' }),
  /** Per message, from 1 (queued): receivers order what arrives out of order. */
  sequence: Type.Integer({ minimum: 1 }),
  at: Timestamp,
  smtp: Type.Optional(Type.Object({ code: Type.Integer(), response: Type.String() })),
  reason: Type.Optional(Type.String()),
  url: Type.Optional(Type.String()),
  attempt: Type.Optional(Type.Integer()),
  /** The send's tags and metadata, when it gave any: every webhook about the message carries them. */
  tags: Type.Optional(Type.Array(Type.String())),
  metadata: Type.Optional(Type.Record(Type.String(), Type.String())),
  /** A scheduled send's time. */
  sendAt: Type.Optional(Timestamp),
  /** The template's language variant the message was rendered in (its default: absent). */
  language: Type.Optional(Type.String()),
  /** The message was sent with a test key: its outcome is simulated. */
  test: Type.Optional(Type.Literal(true)),
});
export type MessageEvent = Static<typeof MessageEvent>;

/** Seen at the edge: the recipient's client fetched the open pixel or followed a tracked link. */
export const TrackingEvent = Type.Object({
  messageId: Type.String(),
  projectId: Type.String(),
  at: Timestamp,
  url: Type.Optional(Type.String({ description: 'clicks: the link followed' })),
  /** Unsubscribes from a cc or bcc copy's own mail: that copy unsubscribes, not the recipient. */
  copy: Type.Optional(CopyPosition),
});
export type TrackingEvent = Static<typeof TrackingEvent>;

/** Every message type on the bus and the schema of its data. */
export const MessageSchemas = {
  'user.create': UserCreateCommand,
  'user.update': UserUpdateCommand,
  'user.unsubscribe': UserUnsubscribeCommand,
  'user.resubscribe': UserResubscribeCommand,
  'user.created': UserCreatedEvent,
  'user.updated': UserUpdatedEvent,
  'user.unsubscribed': UserUnsubscribedEvent,
  'user.update_rejected': UserUpdateRejectedEvent,
  'email.trigger': EmailTriggerCommand,
  /** A batch send's message: the same command, on the batch lane. */
  'email.bulk_trigger': EmailTriggerCommand,
  'email.erasure_requested': EmailErasureRequestedCommand,
  'email.suppress': EmailSuppressCommand,
  'email.unsuppress': EmailUnsuppressCommand,
  'catalog.project': CatalogProject,
  'catalog.domain': CatalogDomain,
  'catalog.template': CatalogTemplate,
  'catalog.email': CatalogEmail,
  'catalog.layout': CatalogLayout,
  'catalog.deleted': CatalogDeleted,
  'message.scheduled': MessageEvent,
  'message.queued': MessageEvent,
  'message.deferred': MessageEvent,
  'message.sent': MessageEvent,
  'message.bounced': MessageEvent,
  'message.failed': MessageEvent,
  'message.suppressed': MessageEvent,
  'message.opened': MessageEvent,
  'message.clicked': MessageEvent,
  'message.unsubscribed': MessageEvent,
  'message.soft_bounced': MessageEvent,
  'message.complained': MessageEvent,
  'message.canceled': MessageEvent,
  'suppression.created': SuppressionChangedEvent,
  'suppression.deleted': SuppressionChangedEvent,
  'suppression.marked': SuppressionMarkedEvent,
  'tracking.opened': TrackingEvent,
  'tracking.clicked': TrackingEvent,
  'tracking.unsubscribed': TrackingEvent,
  'payment.record': PaymentRecordCommand,
  'payment.recorded': PaymentRecordedEvent,
  'payment.rejected': PaymentRejectedEvent,
  'erasure.request': ErasureRequestCommand,
  'erasure.execute': ErasureExecuteCommand,
  'erasure.confirmed': ErasureConfirmedEvent,
  'user.erasure_scheduled': UserErasureScheduledEvent,
  'user.erased': UserErasedEvent,
  'auth.key_revoked': KeyRevokedEvent,
  'gateway.usage': GatewayUsageReport,
  'inbound.received': InboundReceivedEvent,
  'feedback.bounce': FeedbackBounceEvent,
  'feedback.complaint': FeedbackComplaintEvent,
  'feedback.unsubscribe': FeedbackUnsubscribeEvent,
} satisfies Record<string, TSchema>;

export type MessageType = keyof typeof MessageSchemas;
export type MessageData<T extends MessageType> = Static<(typeof MessageSchemas)[T]>;
