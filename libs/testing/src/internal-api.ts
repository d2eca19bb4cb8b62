import { randomBytes } from 'node:crypto';
import { networkInterfaces } from 'node:os';
import { InternalTokens } from '@postbus/http';

/**
 * The INTERNAL_API_SECRET of services a test file starts in-process or as processes (a new one per
 * test file, as a deployment has its own).
 */
export const testInternalApiSecret = randomBytes(32).toString('base64url');

const tokens = new Map<string, InternalTokens>();

/**
 * The Authorization header of a call to a service's internal API, as the gateway sends it: a
 * short-lived token for `audience` (the service, e.g. "users") signed with `secret`.
 */
export function internalAuthorization(audience: string, secret = testInternalApiSecret): Promise<string> {
  let minter = tokens.get(secret);
  if (!minter) tokens.set(secret, (minter = new InternalTokens(secret, 'test')));
  return minter.authorization(audience);
}

/**
 * Addresses of this machine other than 127.0.0.1 a server bound to every interface would answer
 * on: 127.0.0.2 (on Linux all of 127/8 is this host) and the interfaces' IPv4 addresses.
 */
export function otherLocalAddresses(): string[] {
  const interfaces = Object.values(networkInterfaces()).flatMap((list) => list ?? []);
  return ['127.0.0.2', ...interfaces.filter((a) => !a.internal && a.family === 'IPv4').map((a) => a.address)];
}
