import { Type, type Static } from '@sinclair/typebox';
import { Nullable, Timestamp } from './common';

/**
 * The scope of an API key: `full` manages and reads everything; `sdk` only calls the data-plane
 * operations; `test` (a `pb_test_` key) only sends test messages (single and batch), which reach
 * no one, and reads them (docs/test-mode.md).
 */
export const KeyScopeSchema = Type.Union([Type.Literal('full'), Type.Literal('sdk'), Type.Literal('test')], {
  description:
    'full: manages and reads everything; sdk: only the data-plane operations (send, users, payments, unsubscribe, erase); test: only sends test messages, which are simulated and never delivered, and reads them',
  examples: ['test'],
});

export const ApiKey = Type.Object({
  id: Type.String({ description: 'public key id, e.g. key_3f…' }),
  name: Type.String(),
  scope: KeyScopeSchema,
  created_at: Timestamp,
  /** Refreshed at most once a minute. */
  last_used_at: Nullable(Timestamp),
  revoked_at: Nullable(Timestamp),
  project_id: Nullable(
    Type.String({ description: 'the project the key is bound to: it acts on that project only; null for a key of the whole client' }),
  ),
});
export type ApiKey = Static<typeof ApiKey>;

export const ApiKeyList = Type.Object({ data: Type.Array(ApiKey) });

export const CreateApiKeyRequest = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 100, pattern: '\\S', description: 'what the key is for, e.g. "checkout backend"' }),
    scope: KeyScopeSchema,
    project_id: Type.Optional(
      Type.String({
        pattern: '^[0-9a-f]{24}$',
        description:
          'binds the key to this project of the client: it then acts on that project only, and identifies it alone (Authorization: Bearer <key>, X-Postmark-Server-Token, or as an SMTP password with any user name)',
      }),
    ),
  },
  { additionalProperties: false },
);
export type CreateApiKeyRequest = Static<typeof CreateApiKeyRequest>;

export const CreatedApiKey = Type.Object({
  ...ApiKey.properties,
  api_key: Type.String({ description: 'the secret: shown only in this answer (only a digest is stored)' }),
});
export type CreatedApiKey = Static<typeof CreatedApiKey>;

export const ApiKeyParams = Type.Object({ keyId: Type.String({ pattern: '^key_[0-9a-f]{20}$' }) });

/** Bus: a key was revoked; every gateway instance forgets it (and the sessions it opened) at once. */
export const KeyRevokedEvent = Type.Object({ clientId: Type.String(), keyId: Type.String(), revokedAt: Timestamp });

/**
 * Bus: what one gateway instance counted towards the shared rate limits since a window began:
 * `<policy>|<window start ms>|<subject>` → requests, cumulative for that window.
 */
export const GatewayUsageReport = Type.Object({
  instance: Type.String(),
  counts: Type.Record(Type.String(), Type.Integer({ minimum: 0 })),
});
