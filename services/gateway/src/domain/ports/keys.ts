import type { KeyScope } from '../credentials';

/** A client's API key as stored: its digest, never the key. */
export interface ApiKeyDoc {
  /** The public key id (`key_…`). */
  _id: string;
  clientId: string;
  name: string;
  scope: KeyScope;
  /** The project the key is bound to (it acts on that project only), or null for a key of the whole client. */
  projectId: string | null;
  /** Hex SHA-256 of the key; the key itself is never stored. */
  hash: string;
  createdAt: Date;
  lastUsedAt: Date | null;
  revokedAt: Date | null;
}

/** The latest revocation claimed for a client's full keys: number 0 and no key when there is none yet. */
export interface RevocationClaim {
  number: number;
  keyId: string | null;
  at: Date | null;
}

/** What key administration needs of the keys' persistence (see KeyAdmin.revoke for the claims). */
export interface KeyStore {
  create(key: Omit<ApiKeyDoc, 'lastUsedAt' | 'revokedAt'>): Promise<ApiKeyDoc>;
  /** The client's keys, oldest first. */
  list(clientId: string): Promise<ApiKeyDoc[]>;
  /** True when this call is the one that revoked the key. */
  markRevoked(keyId: string, at: Date): Promise<boolean>;
  latestRevocationClaim(clientId: string): Promise<RevocationClaim>;
  /** False when another revocation has the number already. */
  claimRevocation(clientId: string, number: number, keyId: string, at: Date): Promise<boolean>;
}
