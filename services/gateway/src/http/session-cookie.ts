import type { ErrorRequestHandler, Request } from 'express';
import { ForbiddenError, UnauthorizedError } from '@postbus/errors';

/** The admin panel's session: the same JWT as a Bearer session, held by the browser where scripts cannot read it. */
export const SESSION_COOKIE = 'postbus_session';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** The session token in a Cookie header, if there is one. */
export function sessionCookieOf(cookieHeader: string | undefined): string | undefined {
  if (!cookieHeader) return undefined;
  for (const part of cookieHeader.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === SESSION_COOKIE) return part.slice(eq + 1).trim() || undefined;
  }
  return undefined;
}

/**
 * HttpOnly (no script, so no injected one, can read it), SameSite=Strict (the browser does not send
 * it with requests another site starts), Secure when the request came over https (`req.secure`,
 * which honours X-Forwarded-Proto behind a proxy named in TRUST_PROXY).
 */
export function sessionCookie(token: string, maxAgeSeconds: number, secure: boolean): string {
  return `${SESSION_COOKIE}=${token}; Path=/; Max-Age=${maxAgeSeconds}; HttpOnly; SameSite=Strict${secure ? '; Secure' : ''}`;
}

export const clearedSessionCookie = (secure: boolean): string => sessionCookie('', 0, secure);

/**
 * Refuses a cookie-authenticated write that another site may have started. SameSite=Strict already
 * keeps the cookie off requests from other sites, but "site" is the registrable domain: a page on a
 * sibling subdomain (another app on the same company domain) counts as the same site, and old
 * browsers ignore SameSite. So a write must also prove it comes from the panel's own origin: the
 * browser's `Sec-Fetch-Site: same-origin`, or an `Origin` whose host is the host addressed. Both are
 * set by the browser and cannot be forged by a page. Reads change nothing and their answers cannot
 * be read across origins (no CORS), so they need no such proof.
 */
export function assertSameOrigin(req: Request): void {
  if (SAFE_METHODS.has(req.method)) return;
  if (req.get('sec-fetch-site') === 'same-origin') return;
  const origin = req.get('origin');
  if (origin && origin !== 'null') {
    try {
      if (new URL(origin).host === req.host) return;
    } catch {
      // Not a URL: refused below.
    }
  }
  throw new ForbiddenError(
    'A request authenticated by the session cookie must come from the admin panel itself: this one is cross-site (its Origin is not this host).',
  );
}

/**
 * A browser answers a 401 carrying `WWW-Authenticate: Basic` with its own login dialog, even for a
 * script's fetch. The panel's fetches (`Sec-Fetch-Dest: empty`) get a Bearer challenge instead, so
 * the panel shows its sign-in form; curl and SDKs (no Sec-Fetch headers) still get Basic.
 */
export const challengeScriptsWithBearer: ErrorRequestHandler = (error: unknown, req, _res, next) => {
  if (error instanceof UnauthorizedError && req.get('sec-fetch-dest') === 'empty') {
    error.headers['WWW-Authenticate'] = 'Bearer realm="postbus"';
  }
  next(error);
};
