import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { PAGE_LIMIT } from './values';

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

/**
 * A string that is one of `values`, as a JSON Schema `enum` rather than a union of literals, so that
 * a bad value is answered with the allowed ones.
 */
export const StringEnum = <const T extends readonly string[]>(values: T, options: { description?: string } = {}) =>
  Type.Unsafe<T[number]>({ type: 'string', enum: [...values], ...options });

/** One page of a newest-first list: the items and the cursor of the next page. */
export const pageOf = <T extends TSchema>(item: T) =>
  Type.Object({
    data: Type.Array(item),
    next_cursor: Nullable(Type.String({ description: 'pass as cursor for the next (older) page; null on the last page' })),
  });

/** The query parameters of a page: its size and where it starts. */
export const PageParams = {
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: PAGE_LIMIT.max, default: PAGE_LIMIT.default })),
  cursor: Type.Optional(Type.String({ maxLength: 200 })),
};

/** Keys that are safe as MongoDB document keys on every server (no dots, no leading $). */
export const FIELD_NAME_PATTERN = '^[A-Za-z_][A-Za-z0-9_-]{0,63}$';

/**
 * Keys allowed anywhere inside a free-form object (`data`, custom fields, payment `metadata`):
 * what every MongoDB-wire server stores — no NUL byte (the driver refuses the whole batch), no
 * `.` and no leading `$` (the server refuses the document) — 1 to 128 characters.
 */
export const DOCUMENT_KEY_PATTERN = '^(?!\\$)[^\\u0000.]{1,128}$';

/**
 * How big and deep one free-form object may be. Stated in the contract (as the `x-document`
 * keyword, which the gateway enforces) so that a request never grows a bus record past the
 * broker's 1 MB limit: a request carries at most two such objects (user and data) besides a few
 * short strings, and events derived from it copy no more.
 */
export const DOCUMENT_LIMITS = { maxDepth: 16, maxBytes: 256 * 1024 } as const;
export type DocumentLimits = { maxDepth: number; maxBytes: number };

/** What is wrong with a free-form object: a key, its depth (400, with the pointer) or its size (413). */
export type DocumentProblem = { kind: 'key' | 'depth'; pointer: string } | { kind: 'size'; bytes: number };

const KEY = new RegExp(DOCUMENT_KEY_PATTERN);
const pointerPart = (key: string): string => key.replace(/~/g, '~0').replace(/\//g, '~1');

/**
 * Checks a parsed JSON value against the key rule and the limits, without recursion (a hostile
 * body may nest thousands of levels) and before anything serialises it. `checkTopKeys` is false
 * where the schema checks the top-level keys itself (`propertyNames`).
 */
export function inspectDocument(
  value: unknown,
  limits: DocumentLimits = DOCUMENT_LIMITS,
  checkTopKeys = true,
): DocumentProblem | undefined {
  let bytes = 0;
  const stack: Array<{ value: unknown; pointer: string; depth: number }> = [{ value, pointer: '', depth: 0 }];
  while (stack.length > 0) {
    const { value: v, pointer, depth } = stack.pop()!;
    if (v === null || typeof v !== 'object') {
      // As serialised: escapes (a control character is six bytes) count, or a record could outgrow the estimate.
      bytes += typeof v === 'string' ? Buffer.byteLength(JSON.stringify(v)) : String(v).length;
    } else {
      if (depth >= limits.maxDepth) return { kind: 'depth', pointer };
      const entries: Array<[string, unknown]> = Array.isArray(v) ? v.map((item, i) => [String(i), item]) : Object.entries(v);
      bytes += 2 + entries.length;
      for (const [key, item] of entries) {
        if (!Array.isArray(v)) {
          if ((checkTopKeys || depth > 0) && !KEY.test(key)) return { kind: 'key', pointer: `${pointer}/${pointerPart(key)}` };
          bytes += Buffer.byteLength(JSON.stringify(key)) + 1;
        }
        stack.push({ value: item, pointer: `${pointer}/${pointerPart(key)}`, depth: depth + 1 });
      }
    }
    if (bytes > limits.maxBytes) return { kind: 'size', bytes };
  }
  return undefined;
}

/**
 * A free-form JSON object: any values, keys as `DOCUMENT_KEY_PATTERN` at every level, within
 * `DOCUMENT_LIMITS` (the `x-document` keyword, checked by the gateway).
 */
export const FreeFormObject = (options: { description?: string; maxProperties?: number } = {}) =>
  Type.Unsafe<Record<string, unknown>>({
    type: 'object',
    ...{
      additionalProperties: true,
      propertyNames: { pattern: DOCUMENT_KEY_PATTERN },
      'x-document': DOCUMENT_LIMITS,
      ...options,
      description: `${options.description ? `${options.description}; ` : ''}keys at every level: 1 to 128 characters, no NUL, no '.', not starting with '$'; at most ${DOCUMENT_LIMITS.maxDepth} levels deep and ${DOCUMENT_LIMITS.maxBytes / 1024} KB as JSON`,
    },
  });

/** A language as BCP 47 writes it (de, pt-BR, zh-Hant-TW): a user's, a template variant's, a send's. */
export const LanguageTag = Type.String({ maxLength: 35, pattern: '^[A-Za-z]{2,8}(-[A-Za-z0-9]{1,8})*$', description: 'BCP 47 tag' });

/** The attributes every user has; any other key in `fields` is a custom field. */
export const StandardAttributes = {
  name: Type.Optional(Nullable(Type.String({ maxLength: 256 }))),
  country: Type.Optional(Nullable(Type.String({ maxLength: 64 }))),
  language: Type.Optional(Nullable(LanguageTag)),
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
    'x-document': DOCUMENT_LIMITS,
    description: `standard attributes (name, country, language, gender, age, user_id) and custom fields; null removes one; keys inside a field's value: 1 to 128 characters, no NUL, no '.', not starting with '$'; at most ${DOCUMENT_LIMITS.maxDepth} levels deep and ${DOCUMENT_LIMITS.maxBytes / 1024} KB as JSON`,
  },
);

export const normaliseEmail = (email: string): string => email.trim().toLowerCase();

/** The Kafka key that keeps one user's operations in order. */
export const userOrderingKey = (projectId: string, user: { email?: string; userId?: string }): string =>
  user.email !== undefined ? `${projectId}:${normaliseEmail(user.email)}` : `${projectId}:uid:${user.userId ?? ''}`;
