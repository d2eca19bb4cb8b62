import { setTimeout as sleep } from 'node:timers/promises';
import type { Publisher } from '@postbus/bus';
import { Topics, type ApiKey } from '@postbus/contracts';
import { ConflictError, ServiceUnavailableError } from '@postbus/errors';
import { hashApiKey, newApiKey, newKeyId, type KeyScope } from './credentials';
import type { ApiKeyDoc, KeyStore } from './ports/keys';

/** Told of each revocation: the gateway instances' caches (through the bus) and this process's own. */
export type RevocationListener = (revoked: { clientId: string; keyId: string; revokedAt: Date }) => Promise<void>;

/** Revocations of one client's full keys running at once take turns; past this many lost turns the request is a 503. */
const MAX_CLAIM_ATTEMPTS = 20;

/** Announces a revocation on the bus, where every gateway instance hears it. */
export const announceOnBus =
  (publisher: Pick<Publisher, 'publish'>): RevocationListener =>
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
  project_id: key.projectId ?? null,
});

/** Creating, listing and revoking a client's API keys: shared by the API and the operator CLI. */
export class KeyAdmin {
  constructor(
    private readonly keys: KeyStore,
    private readonly onRevoked: RevocationListener,
  ) {}

  /**
   * A new key; its secret is in this answer only (the store keeps a digest). With `projectId` (a
   * project of the client: the caller checked) it is bound to that project.
   */
  async create(
    clientId: string,
    name: string,
    scope: KeyScope,
    projectId: string | null = null,
  ): Promise<{ key: ApiKeyDoc; apiKey: string }> {
    const apiKey = newApiKey(scope);
    const key = await this.keys.create({
      _id: newKeyId(),
      clientId,
      name: name.trim(),
      scope,
      projectId,
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
   *
   * Two revocations of two full keys at once (on two gateway instances) must not each see the
   * other's key as the one that remains. FerretDB has no transactions and its conditional updates
   * are not atomic between connections, so revocations of a client's full keys are numbered: each
   * first completes the latest one claimed (writes its key revoked, in case its claimer has not
   * yet or died), then checks what remains, then claims the next number with a unique insert. Of
   * two revocations that checked the same state only one gets the number; the other starts again,
   * and now sees the first one's key revoked. sdk keys never count as the last full key, so they
   * need no number.
   */
  async revoke(clientId: string, keyId: string, { allowLastFull = false } = {}): Promise<ApiKeyDoc | null> {
    for (let attempt = 1; ; attempt++) {
      const latest = await this.keys.latestRevocationClaim(clientId);
      if (latest.keyId && latest.at) await this.markRevoked(clientId, latest.keyId, latest.at);
      const all = await this.keys.list(clientId);
      const key = all.find((k) => k._id === keyId);
      if (!key) return null;
      if (key.revokedAt) return key;
      const at = new Date();
      if (key.scope === 'full') {
        const otherFull = all.some((k) => k._id !== keyId && k.scope === 'full' && !k.revokedAt);
        if (!otherFull && !allowLastFull) {
          throw new ConflictError(
            'last-full-key',
            'This is the last valid key with scope "full" of this client: create another full key first, then revoke this one.',
          );
        }
        if (!(await this.keys.claimRevocation(clientId, latest.number + 1, keyId, at))) {
          if (attempt >= MAX_CLAIM_ATTEMPTS)
            throw new ServiceUnavailableError("Other revocations of this client's keys are under way; retry.", 1);
          // Apart, so that the revocations that lost a race do not meet again at once.
          await sleep(Math.random() * 20 * attempt);
          continue;
        }
      }
      await this.markRevoked(clientId, keyId, at);
      return { ...key, revokedAt: at };
    }
  }

  /** Writes the key revoked, and tells the listeners when this call is the one that did. */
  private async markRevoked(clientId: string, keyId: string, at: Date): Promise<void> {
    if (await this.keys.markRevoked(keyId, at)) await this.onRevoked({ clientId, keyId, revokedAt: at });
  }
}
