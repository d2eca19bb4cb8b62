import type { Request, RequestHandler } from 'express';
import { UnauthorizedError } from '@postbus/errors';
import { hashApiKey, parseBasic, type KeyScope } from '../domain/credentials';
import type { Sessions } from '../domain/sessions';
import type { KeyCheck, VerifiedKey } from './key-check';
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
   * Set when the key is bound to a project, or the credentials named a project instead of the
   * client (Basic `<project id>:<key>`, as SMTP submission's login takes them): they act on that project only.
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
  /** A request header that carries an API key alone, as Bearer does (Postmark's X-Postmark-Server-Token). */
  tokenHeader?: string;
}

/** A project id (a MongoDB ObjectId's hex) in the place of Basic credentials' client id (which starts cl_). */
const PROJECT_ID = /^[0-9a-f]{24}$/;
const CLIENT_ID = /^cl_/;
/** An admin session is a JWT (three dot-separated parts); an API key has no dot. */
const isSessionToken = (token: string): boolean => token.split('.').length === 3;
/** The failure count of keys presented alone, with no client id to count them by: per address. */
const KEY_ALONE = '*';

/**
 * Authentication against hashed API keys, or an admin session whose key is still valid:
 * - HTTP Basic: the user name is the client id, or a project id of the key's client (the
 *   credentials then act on that project only); a key bound to a project takes any user name
 *   but another client's or project's id, as SMTP logins give them;
 * - an API key alone, as Bearer or in `tokenHeader`: the key names its client (and its project, when bound);
 * - an admin session: Bearer, or the admin panel's session cookie (only when no credentials are
 *   sent otherwise, and only from the panel's own origin).
 * Credentials of any kind that a browser sends with a request another site started are refused
 * (see siteOfRequest). An API key that keeps failing from one address is refused there for a
 * while (see AuthFailureLimit).
 */
export function authenticate(keys: KeyCheck, sessions: Sessions, failures: AuthFailureLimit, options: AuthOptions): RequestHandler {
  const keyAlone = async (req: Request, key: string): Promise<AuthenticatedClient> => {
    const digest = hashApiKey(key);
    failures.assertAllowed(req, KEY_ALONE, digest);
    const found = await keys.verifyKey(digest);
    if (!found) {
      failures.failed(req, KEY_ALONE);
      throw new UnauthorizedError('The API key is not valid, or it was revoked.');
    }
    failures.succeeded(req, digest);
    return clientOf(found);
  };

  return async (req, res, next) => {
    const header = req.get('authorization');
    const token = options.tokenHeader ? req.get(options.tokenHeader) : undefined;
    if (token !== undefined && !header) {
      req.client = await keyAlone(req, token.trim());
      return next();
    }
    const sent = header ? undefined : sessionCookieOf(req.get('cookie'), req.secure);
    const site = header || sent ? siteOfRequest(req, options.publicOrigin) : undefined;
    if (site === 'cross-site') throw crossSiteCredentials(req, header ? 'Authorization header' : 'session cookie');
    // Without the headers a browser sets (curl, an SDK that kept it) the cookie is no credential.
    const cookie = site === 'same-origin' ? sent : undefined;
    if (!header && !cookie) throw new UnauthorizedError();
    const bearer = header ? /^Bearer\s+(\S+)\s*$/i.exec(header)?.[1] : cookie;
    // The cookie only ever holds a session.
    if (bearer && !cookie && !isSessionToken(bearer)) {
      req.client = await keyAlone(req, bearer);
      return next();
    }
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
    const named = credentials.clientId;
    const found = await keys.verifyKey(digest);
    const holds =
      found !== undefined &&
      (found.projectId !== null
        ? named === found.clientId || named === found.projectId || !(PROJECT_ID.test(named) || CLIENT_ID.test(named))
        : named === found.clientId || (PROJECT_ID.test(named) && (await options.ownsProject(found.clientId, named))));
    if (!found || !holds) {
      failures.failed(req, named);
      throw new UnauthorizedError(
        PROJECT_ID.test(named) ? 'The project id or API key is not valid.' : 'The client id or API key is not valid.',
      );
    }
    failures.succeeded(req, digest);
    const project = found.projectId ?? (PROJECT_ID.test(named) ? named : undefined);
    req.client = { ...clientOf(found), ...(project !== undefined ? { project } : {}) };
    next();
  };
}

/** The client a key proves, acting on the key's project when it is bound to one. */
const clientOf = (key: VerifiedKey): AuthenticatedClient => ({
  clientId: key.clientId,
  scope: key.scope,
  keyId: key.keyId,
  via: 'key',
  ...(key.projectId !== null ? { project: key.projectId } : {}),
});
