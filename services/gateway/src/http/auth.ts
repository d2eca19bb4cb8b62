import type { RequestHandler } from 'express';
import { UnauthorizedError } from '@postbus/errors';
import { hashApiKey, parseBasic, type KeyScope } from '../domain/credentials';
import type { Sessions } from '../domain/sessions';
import type { KeyCheck } from './key-check';
import type { AuthFailureLimit } from './rate-limit';
import { clearedSessionCookie, crossSiteCredentials, sessionCookieOf, siteOfRequest } from './session-cookie';

export interface AuthenticatedClient {
  clientId: string;
  scope: KeyScope;
  /** The API key that proved it (for a session: the key that opened it). */
  keyId: string;
  /** How the request proved it: an API key (Basic) or an admin session (Bearer, or the panel's cookie). */
  via: 'key' | 'session';
  /**
   * Set when the credentials named a project instead of the client (Basic `<project id>:<key>`,
   * as SMTP submission's login takes them): they act on that project only.
   */
  project?: string;
}

declare module 'express-serve-static-core' {
  interface Request {
    client?: AuthenticatedClient;
  }
}

export interface AuthOptions {
  /** The gateway's public origin (PUBLIC_BASE_URL), besides the origin each request was addressed to. */
  publicOrigin?: string;
  /** Whether the project is the client's: credentials naming a project hold only for one of the key's client. */
  ownsProject: (clientId: string, projectId: string) => Promise<boolean>;
}

/** A project id (a MongoDB ObjectId's hex) in the place of Basic credentials' client id (which starts cl_). */
const PROJECT_ID = /^[0-9a-f]{24}$/;

/**
 * HTTP Basic authentication against hashed API keys (the user name is the client id, or a project
 * id of the key's client, whose credentials then act on that project only), or an admin session whose key is still valid:
 * Bearer, or the admin panel's session cookie (only when no Authorization header is sent, and only
 * from the panel's own origin). Credentials of any kind that a browser sends with a request another
 * site started are refused (see siteOfRequest). An API key that keeps failing from one address is
 * refused there for a while (see AuthFailureLimit).
 */
export function authenticate(keys: KeyCheck, sessions: Sessions, failures: AuthFailureLimit, options: AuthOptions): RequestHandler {
  return async (req, res, next) => {
    const header = req.get('authorization');
    const sent = header ? undefined : sessionCookieOf(req.get('cookie'), req.secure);
    const site = header || sent ? siteOfRequest(req, options.publicOrigin) : undefined;
    if (site === 'cross-site') throw crossSiteCredentials(req, header ? 'Authorization header' : 'session cookie');
    // Without the headers a browser sets (curl, an SDK that kept it) the cookie is no credential.
    const cookie = site === 'same-origin' ? sent : undefined;
    if (!header && !cookie) throw new UnauthorizedError();
    const bearer = header ? /^Bearer\s+(\S+)\s*$/i.exec(header)?.[1] : cookie;
    if (bearer) {
      // A session is a signed token, not a secret one could guess: no failure count guards it.
      const claims = await sessions.verify(bearer);
      const key = claims && (await keys.active(claims.keyId));
      if (!claims || !key || key.clientId !== claims.clientId) {
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
    if (!credentials) throw new UnauthorizedError('The client id or API key is not valid.');
    const digest = hashApiKey(credentials.key);
    failures.assertAllowed(req, credentials.clientId, digest);
    const project = PROJECT_ID.test(credentials.clientId) ? credentials.clientId : undefined;
    const key = project
      ? await keys
          .verifyKey(digest)
          .then(async (found) => (found && (await options.ownsProject(found.clientId, project)) ? found : undefined))
      : await keys.verify(credentials.clientId, digest);
    if (!key) {
      failures.failed(req, credentials.clientId);
      throw new UnauthorizedError(project ? 'The project id or API key is not valid.' : 'The client id or API key is not valid.');
    }
    failures.succeeded(req, digest);
    req.client = { clientId: key.clientId, scope: key.scope, keyId: key.keyId, via: 'key', ...(project ? { project } : {}) };
    next();
  };
}
