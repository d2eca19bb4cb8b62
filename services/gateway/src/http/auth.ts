import type { RequestHandler } from 'express';
import { UnauthorizedError } from '@postbus/errors';
import { hashApiKey, parseBasic, type KeyScope } from '../domain/credentials';
import type { Sessions } from '../domain/sessions';
import type { KeyCheck } from './key-check';
import type { AuthFailureLimit } from './rate-limit';

export interface AuthenticatedClient {
  clientId: string;
  scope: KeyScope;
  /** The API key that proved it (for a session: the key that opened it). */
  keyId: string;
  /** How the request proved it: an API key (Basic) or an admin session (Bearer). */
  via: 'key' | 'session';
}

declare module 'express-serve-static-core' {
  interface Request {
    client?: AuthenticatedClient;
  }
}

/**
 * HTTP Basic authentication against hashed API keys, or a Bearer admin session whose key is still
 * valid. An address that keeps failing is refused for a while, whatever it sends.
 */
export function authenticate(keys: KeyCheck, sessions: Sessions, failures: AuthFailureLimit): RequestHandler {
  return async (req, _res, next) => {
    const header = req.get('authorization');
    if (!header) throw new UnauthorizedError();
    failures.assertAllowed(req);
    const bearer = /^Bearer\s+(\S+)\s*$/i.exec(header)?.[1];
    if (bearer) {
      const claims = await sessions.verify(bearer);
      const key = claims && (await keys.active(claims.keyId));
      if (!claims || !key || key.clientId !== claims.clientId) {
        failures.failed(req);
        throw new UnauthorizedError(
          'The session is not valid, has expired or its key was revoked; open a new one with POST /v1/auth/session.',
        );
      }
      req.client = { clientId: claims.clientId, scope: claims.scope, keyId: claims.keyId, via: 'session' };
      return next();
    }
    const credentials = parseBasic(header);
    const key = credentials && (await keys.verify(credentials.clientId, hashApiKey(credentials.key)));
    if (!key) {
      failures.failed(req);
      throw new UnauthorizedError('The client id or API key is not valid.');
    }
    req.client = { clientId: key.clientId, scope: key.scope, keyId: key.keyId, via: 'key' };
    next();
  };
}
