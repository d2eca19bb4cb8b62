import { Type, type Static } from '@sinclair/typebox';
import { PAGE_LIMIT } from '../values';
import { Nullable } from '../common';

/** Who mail comes from, as a project sets it and a transactional email may override it. */
export const SenderIdentity = {
  from_email: Nullable(Type.String()),
  from_name: Nullable(Type.String()),
  reply_to: Nullable(Type.String()),
};

export const Accepted = Type.Object({
  status: Type.Literal('accepted'),
  request_id: Type.String(),
});
export type Accepted = Static<typeof Accepted>;

export const ProblemBody = Type.Object({
  type: Type.String(),
  title: Type.String(),
  status: Type.Integer(),
  detail: Type.Optional(Type.String()),
  errors: Type.Optional(Type.Array(Type.Object({ pointer: Type.String(), message: Type.String() }))),
  request_id: Type.Optional(Type.String()),
});

export const ListQuery = Type.Object(
  { limit: Type.Optional(Type.Integer({ minimum: 1, maximum: PAGE_LIMIT.max, default: PAGE_LIMIT.default })) },
  { additionalProperties: false },
);
