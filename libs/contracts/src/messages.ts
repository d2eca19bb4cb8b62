import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { Nullable, Timestamp } from './common';

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
  reason: Type.Union([Type.Literal('user_not_found'), Type.Literal('user_id_taken')]),
});

/** An accepted trigger: the mailer renders and sends it; the users service registers an unknown user. */
export const EmailTriggerCommand = Type.Object({
  messageId: Type.String(),
  projectId: Type.String(),
  emailId: Type.String(),
  emailKey: Type.String(),
  templateId: Type.String(),
  templateVersion: Type.Integer(),
  /** The user as the trigger described them: email (normalised), user_id, standard attributes, custom fields. */
  user: Type.Record(Type.String(), Type.Unknown()),
  data: Type.Record(Type.String(), Type.Unknown()),
  acceptedAt: Timestamp,
});
export type EmailTriggerCommand = Static<typeof EmailTriggerCommand>;

/** Every message type on the bus and the schema of its data. */
export const MessageSchemas = {
  'user.create': UserCreateCommand,
  'user.update': UserUpdateCommand,
  'user.unsubscribe': UserUnsubscribeCommand,
  'user.created': UserCreatedEvent,
  'user.updated': UserUpdatedEvent,
  'user.unsubscribed': UserUnsubscribedEvent,
  'user.update_rejected': UserUpdateRejectedEvent,
  'email.trigger': EmailTriggerCommand,
} satisfies Record<string, TSchema>;

export type MessageType = keyof typeof MessageSchemas;
export type MessageData<T extends MessageType> = Static<(typeof MessageSchemas)[T]>;
