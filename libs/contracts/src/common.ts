import { Type, type Static, type TSchema } from '@sinclair/typebox';

export const Email = Type.String({ format: 'email', maxLength: 254, description: 'email address, compared case-insensitively' });
export const UserId = Type.String({
  minLength: 1,
  maxLength: 128,
  pattern: '^\\S(.*\\S)?$',
  description: "the client's own identifier for the user",
});
export const ObjectIdString = Type.String({ pattern: '^[a-f0-9]{24}$' });
export const Timestamp = Type.String({ format: 'date-time' });
/**
 * The schema or null, written as a JSON Schema type list (`["integer", "null"]`) rather than a
 * union, so that a validation error names the real constraint ("must be <= 150").
 */
export const Nullable = <T extends TSchema>(schema: T) => {
  const { type, ...rest } = schema as TSchema & { type?: string };
  return type
    ? Type.Unsafe<Static<T> | null>({ ...rest, type: [type, 'null'] })
    : Type.Unsafe<Static<T> | null>({ anyOf: [schema, { type: 'null' }] });
};

/** One page of a newest-first list: the items and the cursor of the next page. */
export const pageOf = <T extends TSchema>(item: T) =>
  Type.Object({
    data: Type.Array(item),
    next_cursor: Nullable(Type.String({ description: 'pass as cursor for the next (older) page; null on the last page' })),
  });

/** The query parameters of a page: its size and where it starts. */
export const PageParams = {
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 50 })),
  cursor: Type.Optional(Type.String({ maxLength: 200 })),
};

/** Keys that are safe as MongoDB document keys on every server (no dots, no leading $). */
export const FIELD_NAME_PATTERN = '^[A-Za-z_][A-Za-z0-9_-]{0,63}$';

/** The attributes every user has; any other key in `fields` is a custom field. */
export const StandardAttributes = {
  name: Type.Optional(Nullable(Type.String({ maxLength: 256 }))),
  country: Type.Optional(Nullable(Type.String({ maxLength: 64 }))),
  language: Type.Optional(
    Nullable(Type.String({ maxLength: 35, pattern: '^[A-Za-z]{2,8}(-[A-Za-z0-9]{1,8})*$', description: 'BCP 47 tag' })),
  ),
  gender: Type.Optional(Nullable(Type.String({ maxLength: 32 }))),
  age: Type.Optional(Nullable(Type.Integer({ minimum: 0, maximum: 150 }))),
};

export const STANDARD_ATTRIBUTE_NAMES = ['name', 'country', 'language', 'gender', 'age'] as const;
export type StandardAttributeName = (typeof STANDARD_ATTRIBUTE_NAMES)[number];

/** Standard attributes and custom fields; null removes a value. */
export const UserFields = Type.Object(
  { ...StandardAttributes, user_id: Type.Optional(Nullable(UserId)) },
  {
    additionalProperties: Type.Unknown(),
    propertyNames: { pattern: FIELD_NAME_PATTERN },
    maxProperties: 100,
    description: 'standard attributes (name, country, language, gender, age, user_id) and custom fields; null removes one',
  },
);

export const normaliseEmail = (email: string): string => email.trim().toLowerCase();

/** The Kafka key that keeps one user's operations in order. */
export const userOrderingKey = (projectId: string, user: { email?: string; userId?: string }): string =>
  user.email !== undefined ? `${projectId}:${normaliseEmail(user.email)}` : `${projectId}:uid:${user.userId ?? ''}`;
