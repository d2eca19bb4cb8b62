import type { Logger } from '@postbus/logger';
import { keyMatches, type KeyScope } from '../domain/credentials';
import type { ApiKeyRepository } from '../model/api-key.repository';

export interface VerifiedKey {
  clientId: string;
  keyId: string;
  scope: KeyScope;
  /** The project the key is bound to, if it is. */
  projectId: string | null;
}

/** However AUTH_CACHE_TTL_MS is set, a revoked key is refused by every instance within this long, even if the bus is down. */
export const MAX_KEY_CACHE_MS = 1_000;
/** last_used_at is written at most this often per key and instance: an update scans the collection. */
const TOUCH_INTERVAL_MS = 60_000;
const MAX_ENTRIES = 10_000;

/**
 * Answers "is this key valid?" with a short cache, so that the hot path costs one SHA-256 and no
 * database read. Revocations heard on the bus (or made here) take effect at once; the cache's
 * lifetime is capped at MAX_KEY_CACHE_MS so that one missed on the bus still lands within it.
 */
export class KeyCheck {
  private readonly byDigest = new Map<string, { key: VerifiedKey; expires: number }>();
  private readonly byId = new Map<string, { key: VerifiedKey | null; expires: number }>();
  private readonly revokedIds = new Set<string>();
  private readonly touchedAt = new Map<string, number>();
  private readonly ttlMs: number;

  constructor(
    private readonly keys: ApiKeyRepository,
    cacheTtlMs: number,
    private readonly logger: Logger,
    private readonly now: () => number = Date.now,
  ) {
    this.ttlMs = Math.min(cacheTtlMs, MAX_KEY_CACHE_MS);
  }

  /** The key presented with Basic credentials, when it is the client's and not revoked. */
  async verify(clientId: string, digest: Buffer): Promise<VerifiedKey | undefined> {
    const key = await this.verifyKey(digest);
    return key?.clientId === clientId ? key : undefined;
  }

  /** The key presented, whoever's it is, when it is not revoked: the key alone names its client. */
  async verifyKey(digest: Buffer): Promise<VerifiedKey | undefined> {
    const digestHex = digest.toString('hex');
    const hit = this.byDigest.get(digestHex);
    let key: VerifiedKey | undefined;
    if (hit && hit.expires > this.now()) {
      key = hit.key;
    } else {
      const stored = await this.keys.findByHash(digestHex);
      if (stored && !stored.revokedAt && keyMatches(digest, stored.hash)) {
        key = { clientId: stored.clientId, keyId: stored._id, scope: stored.scope, projectId: stored.projectId ?? null };
        this.remember(this.byDigest, digestHex, { key, expires: this.now() + this.ttlMs });
      }
    }
    if (!key || this.revokedIds.has(key.keyId)) return undefined;
    this.touch(key.keyId);
    return key;
  }

  /** The key that opened a session, while it is still valid. */
  async active(keyId: string): Promise<VerifiedKey | undefined> {
    if (this.revokedIds.has(keyId)) return undefined;
    const hit = this.byId.get(keyId);
    if (hit && hit.expires > this.now()) return hit.key ?? undefined;
    const stored = await this.keys.findById(keyId);
    const key =
      stored && !stored.revokedAt
        ? { clientId: stored.clientId, keyId: stored._id, scope: stored.scope, projectId: stored.projectId ?? null }
        : null;
    this.remember(this.byId, keyId, { key, expires: this.now() + this.ttlMs });
    return key ?? undefined;
  }

  /** A key was revoked (here, by another instance or by the CLI): refused from now on. */
  revoked(keyId: string): void {
    this.revokedIds.add(keyId);
    this.byId.delete(keyId);
    for (const [digest, entry] of this.byDigest) if (entry.key.keyId === keyId) this.byDigest.delete(digest);
  }

  private touch(keyId: string): void {
    const at = this.now();
    if (at - (this.touchedAt.get(keyId) ?? 0) < TOUCH_INTERVAL_MS) return;
    this.remember(this.touchedAt, keyId, at);
    this.keys.touch(keyId, new Date(at)).catch((error: unknown) => {
      this.logger.warn('recording when a key was last used failed', { keyId, error: (error as Error).message });
    });
  }

  private remember<V>(map: Map<string, V>, key: string, value: V): void {
    if (map.size >= MAX_ENTRIES) map.clear();
    map.set(key, value);
  }
}
