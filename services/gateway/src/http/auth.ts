import type { RequestHandler } from 'express';
import { UnauthorizedError } from '@postbus/errors';
import { hashApiKey, parseBasic, type KeyScope } from '../domain/credentials';
import type { Sessions } from '../domain/sessions';
import type { KeyCheck } from './key-check';
import type { AuthFailureLimit } from './rate-limit';
import { clearedSessionCookie, crossSiteCookie, sessionCookieOf, siteOfCookieRequest } from './session-cookie';

export interface AuthenticatedClient {
  clientId: string;
  scope: KeyScope;
  /** The API key that proved it (for a session: the key that opened it). */
  keyId: string;
  /** How the request proved it: an API key (Basic) or an admin session (Bearer, or the panel's cookie). */
  via: 'key' | 'session';
}

declare module 'express-serve-static-core' {
  interface Request {
    client?: AuthenticatedClient;
  }
}

/**
 * HTTP Basic authentication against hashed API keys, or an admin session whose key is still valid:
 * Bearer, or the admin panel's session cookie (only when no Authorization header is sent, and only
 * from the panel's own origin: see siteOfCookieRequest). An address that keeps
 * failing is refused for a while, whatever it sends.
 */
export function authenticate(keys: KeyCheck, sessions: Sessions, failures: AuthFailureLimit): RequestHandler {
  return async (req, res, next) => {
    const header = req.get('authorization');
    const sent = header ? undefined : sessionCookieOf(req.get('cookie'));
    const site = sent ? siteOfCookieRequest(req) : undefined;
    if (site === 'cross-site') throw crossSiteCookie();
    const cookie = site === 'same-origin' ? sent : undefined;
    if (!header && !cookie) throw new UnauthorizedError();
    failures.assertAllowed(req);
    const bearer = header ? /^Bearer\s+(\S+)\s*$/i.exec(header)?.[1] : cookie;
    if (bearer) {
      const claims = await sessions.verify(bearer);
      const key = claims && (await keys.active(claims.keyId));
      if (!claims || !key || key.clientId !== claims.clientId) {
        failures.failed(req);
        // A dead cookie is dropped, so the browser stops sending it.
        if (cookie) res.set('Set-Cookie', clearedSessionCookie(req.secure));
        throw new UnauthorizedError(
          cookie
            ? 'The session has expired or its key was revoked; sign in again.'
            : 'The session is not valid, has expired or its key was revoked; open a new one with POST /v1/auth/session.',
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
