import { Type, type Static } from '@sinclair/typebox';
import { Email, Nullable, Timestamp, UserFields, UserId } from '../common';

export const CreateUserRequest = Type.Object(
  { email: Email, user_id: Type.Optional(UserId), fields: Type.Optional(UserFields) },
  { additionalProperties: false },
);
export type CreateUserRequest = Static<typeof CreateUserRequest>;

export const UpdateUserByEmailRequest = Type.Object({ email: Email, fields: UserFields }, { additionalProperties: false });
export type UpdateUserByEmailRequest = Static<typeof UpdateUserByEmailRequest>;

export const UpdateUserByIdRequest = Type.Object({ fields: UserFields }, { additionalProperties: false });
export type UpdateUserByIdRequest = Static<typeof UpdateUserByIdRequest>;

export const UnsubscribeRequest = Type.Object(
  {
    email: Type.Optional(Email),
    user_id: Type.Optional(UserId),
    reason: Type.Optional(Type.String({ maxLength: 500 })),
  },
  { additionalProperties: false, anyOf: [{ required: ['email'] }, { required: ['user_id'] }] },
);
export type UnsubscribeRequest = Static<typeof UnsubscribeRequest>;

export const UserIdParam = Type.Object({ userId: UserId });

export const UserLookupQuery = Type.Object({ email: Email }, { additionalProperties: false });

export const UserProfile = Type.Object({
  id: Type.String(),
  project_id: Type.String(),
  email: Type.String(),
  user_id: Nullable(Type.String()),
  name: Nullable(Type.String()),
  country: Nullable(Type.String()),
  language: Nullable(Type.String()),
  gender: Nullable(Type.String()),
  age: Nullable(Type.Integer()),
  fields: Type.Record(Type.String(), Type.Unknown()),
  subscription: Type.Object({
    status: Type.Union([Type.Literal('subscribed'), Type.Literal('unsubscribed')]),
    unsubscribed_at: Nullable(Timestamp),
    reason: Nullable(Type.String()),
  }),
  erasure: Nullable(
    Type.Object({ id: Type.String(), erase_at: Timestamp }, { description: 'set while the user is queued for erasure: no mail goes out' }),
  ),
  created_at: Timestamp,
  updated_at: Timestamp,
});
export type UserProfile = Static<typeof UserProfile>;
