import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

export type KeyScope = 'full' | 'sdk' | 'test';
export const KEY_SCOPES: readonly KeyScope[] = ['full', 'sdk', 'test'];

/** A client id: public, appears in logs and URLs of the admin panel. */
export const newClientId = (): string => `cl_${randomBytes(10).toString('hex')}`;

/** The public id of an API key: names it in lists, logs and revocations; never authenticates. */
export const newKeyId = (): string => `key_${randomBytes(10).toString('hex')}`;

/** An API key: a random 256-bit secret, shown once. */
export const newApiKey = (scope: KeyScope): string => `pb_${scope}_${randomBytes(32).toString('base64url')}`;

/**
 * Keys are high-entropy random secrets, so a SHA-256 digest is a sufficient store (a slow password
 * hash would only cap the request rate) and is compared in constant time.
 */
export const hashApiKey = (key: string): Buffer => createHash('sha256').update(key, 'utf8').digest();

export const keyMatches = (presented: Buffer, storedHex: string): boolean => {
  const stored = Buffer.from(storedHex, 'hex');
  return stored.length === presented.length && timingSafeEqual(stored, presented);
};

/** Parses `Authorization: Basic base64(clientId:api_key)`; undefined when absent or malformed. */
export function parseBasic(header: string | undefined): { clientId: string; key: string } | undefined {
  if (!header) return undefined;
  const match = /^Basic\s+([A-Za-z0-9+/=_-]+)\s*$/i.exec(header);
  if (!match?.[1]) return undefined;
  const decoded = Buffer.from(match[1], 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon <= 0) return undefined;
  return { clientId: decoded.slice(0, colon), key: decoded.slice(colon + 1) };
}
