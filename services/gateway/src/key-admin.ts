import type { Publisher } from '@postbus/bus';
import { Topics, type ApiKey } from '@postbus/contracts';
import { ConflictError } from '@postbus/errors';
import { hashApiKey, newApiKey, newKeyId, type KeyScope } from './domain/credentials';
import type { ApiKeyDoc, ApiKeyRepository } from './model/api-key.repository';

/** Told of each revocation: the gateway instances' caches (through the bus) and this process's own. */
export type RevocationListener = (revoked: { clientId: string; keyId: string; revokedAt: Date }) => Promise<void>;

/** Announces a revocation on the bus, where every gateway instance hears it. */
export const announceOnBus =
  (publisher: Publisher): RevocationListener =>
  ({ clientId, keyId, revokedAt }) =>
    publisher
      .publish(Topics.Auth, 'auth.key_revoked', keyId, { clientId, keyId, revokedAt: revokedAt.toISOString() })
      .then(() => undefined);

/** A key as the API shows it: never its secret nor its digest. */
export const publicKey = (key: ApiKeyDoc): ApiKey => ({
  id: key._id,
  name: key.name,
  scope: key.scope,
  created_at: key.createdAt.toISOString(),
  last_used_at: key.lastUsedAt?.toISOString() ?? null,
  revoked_at: key.revokedAt?.toISOString() ?? null,
});

/** Creating, listing and revoking a client's API keys: shared by the API and the operator CLI. */
export class KeyAdmin {
  constructor(
    private readonly keys: ApiKeyRepository,
    private readonly onRevoked: RevocationListener,
  ) {}

  /** A new key; its secret is in this answer only (the store keeps a digest). */
  async create(clientId: string, name: string, scope: KeyScope): Promise<{ key: ApiKeyDoc; apiKey: string }> {
    const apiKey = newApiKey(scope);
    const key = await this.keys.create({
      _id: newKeyId(),
      clientId,
      name: name.trim(),
      scope,
      hash: hashApiKey(apiKey).toString('hex'),
      createdAt: new Date(),
    });
    return { key, apiKey };
  }

  list(clientId: string): Promise<ApiKeyDoc[]> {
    return this.keys.list(clientId);
  }

  /**
   * Revokes a key of the client (again: no change); null when the client has no such key. The
   * client's last valid `full` key is kept unless `allowLastFull` (the operator's --force): without
   * it, nobody could manage the client's keys any more.
   */
  async revoke(clientId: string, keyId: string, { allowLastFull = false } = {}): Promise<ApiKeyDoc | null> {
    const all = await this.keys.list(clientId);
    const key = all.find((k) => k._id === keyId);
    if (!key) return null;
    if (key.revokedAt) return key;
    const otherFull = all.some((k) => k._id !== keyId && k.scope === 'full' && !k.revokedAt);
    if (key.scope === 'full' && !otherFull && !allowLastFull) {
      throw new ConflictError(
        'last-full-key',
        'This is the last valid key with scope "full" of this client: create another full key first, then revoke this one.',
      );
    }
    const revoked = await this.keys.revoke(clientId, keyId, new Date());
    if (revoked?.revokedAt) await this.onRevoked({ clientId, keyId, revokedAt: revoked.revokedAt });
    return revoked;
  }
}
