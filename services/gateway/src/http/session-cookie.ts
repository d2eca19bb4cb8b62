import type { ErrorRequestHandler, Request } from 'express';
import { ForbiddenError, UnauthorizedError } from '@postbus/errors';

/** The admin panel's session: the same JWT as a Bearer session, held by the browser where scripts cannot read it. */
export const SESSION_COOKIE = 'postbus_session';

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
 * Where a request carrying the session cookie comes from, by the headers the browser sets and a
 * page cannot forge: `Sec-Fetch-Site`, else an `Origin` whose host is the host addressed.
 * - `same-origin`: the panel itself; the cookie is the session.
 * - `cross-site`: another origin, refused with 403. SameSite=Strict already keeps the cookie off
 *   requests other sites start, but "site" is the registrable domain: a page on a sibling subdomain
 *   (another app on the same company domain) counts as the same site, and old browsers ignore
 *   SameSite. Reads are refused too: the answer would not be readable across origins (no CORS),
 *   but a read still tells timing and existence to a page that should learn nothing.
 * - `unknown`: no such header, so no browser's script (curl or an SDK that kept the cookie, a typed
 *   URL): the cookie is ignored and the request needs credentials like any other.
 */
export function siteOfCookieRequest(req: Request): 'same-origin' | 'cross-site' | 'unknown' {
  const fetchSite = req.get('sec-fetch-site');
  if (fetchSite === 'same-origin') return 'same-origin';
  if (fetchSite && fetchSite !== 'none') return 'cross-site';
  const origin = req.get('origin');
  if (!origin) return 'unknown';
  try {
    return origin !== 'null' && new URL(origin).host === req.host ? 'same-origin' : 'cross-site';
  } catch {
    return 'cross-site';
  }
}

export const crossSiteCookie = () =>
  new ForbiddenError(
    'A request authenticated by the session cookie must come from the admin panel itself: this one is cross-site (its Origin is not this host).',
  );

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
