import type { RequestHandler } from 'express';
import { UnauthorizedError } from '@postbus/errors';
import { hashApiKey, keyMatches, parseBasic, type KeyScope } from '../domain/credentials';
import type { Sessions } from '../domain/sessions';
import type { ClientRepository } from '../model/client.repository';

export interface AuthenticatedClient {
  clientId: string;
  scope: KeyScope;
  /** How the request proved it: an API key (Basic) or an admin session (Bearer). */
  via: 'key' | 'session';
}

declare module 'express-serve-static-core' {
  interface Request {
    client?: AuthenticatedClient;
  }
}

/**
 * HTTP Basic authentication against hashed client keys, or a Bearer admin session. A verified
 * (client, key digest) pair is cached briefly so that the hot path costs one SHA-256 and no
 * database read.
 */
export function authenticate(clients: ClientRepository, sessions: Sessions, cacheTtlMs: number): RequestHandler {
  const cache = new Map<string, { client: AuthenticatedClient; expires: number }>();
  return async (req, _res, next) => {
    const header = req.get('authorization');
    const bearer = header && /^Bearer\s+(\S+)\s*$/i.exec(header)?.[1];
    if (bearer) {
      const claims = await sessions.verify(bearer);
      if (!claims) throw new UnauthorizedError('The session is not valid or has expired; open a new one with POST /v1/auth/session.');
      req.client = { ...claims, via: 'session' };
      return next();
    }
    const credentials = parseBasic(header);
    if (!credentials) throw new UnauthorizedError();
    const digest = hashApiKey(credentials.key);
    const cacheKey = `${credentials.clientId}:${digest.toString('hex')}`;
    const hit = cache.get(cacheKey);
    if (hit && hit.expires > Date.now()) {
      req.client = hit.client;
      return next();
    }
    const client = await clients.findByClientId(credentials.clientId);
    const key = client?.keys.find((k) => !k.revokedAt && keyMatches(digest, k.hash));
    if (!client || !key) throw new UnauthorizedError('The client id or API key is not valid.');
    req.client = { clientId: client.clientId, scope: key.scope, via: 'key' };
    if (cache.size > 10_000) cache.clear();
    cache.set(cacheKey, { client: req.client, expires: Date.now() + cacheTtlMs });
    next();
  };
}
