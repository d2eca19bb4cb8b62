import type { ErrorRequestHandler, Request } from 'express';
import { AppError, UnauthorizedError } from '@postbus/errors';

/** The admin panel's session over plain http (development, tests): the same JWT as a Bearer session, held by the browser where scripts cannot read it. */
export const SESSION_COOKIE = 'postbus_session';
/**
 * Its name over https. Cookies are not separated by port, nor by scheme for reading, and a sibling
 * subdomain may set one for the parent domain: any of those could plant a `postbus_session` the
 * gateway would take for its own (a session fixation). A `__Host-` cookie is accepted by the
 * browser only from a secure origin, with Secure, Path=/ and no Domain, so only this exact host
 * over https can have set it.
 */
export const SECURE_SESSION_COOKIE = `__Host-${SESSION_COOKIE}`;

const cookieName = (secure: boolean): string => (secure ? SECURE_SESSION_COOKIE : SESSION_COOKIE);

/**
 * The session token in a Cookie header, if there is one: over https only the `__Host-` cookie
 * counts (an unprefixed one there may have been planted), over http only the plain one (browsers
 * refuse `__Host-` cookies from an http origin).
 */
export function sessionCookieOf(cookieHeader: string | undefined, secure = false): string | undefined {
  if (!cookieHeader) return undefined;
  const name = cookieName(secure);
  for (const part of cookieHeader.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim() || undefined;
  }
  return undefined;
}

/**
 * HttpOnly (no script, so no injected one, can read it), SameSite=Strict (the browser does not send
 * it with requests another site starts), Path=/ and no Domain (this host only). Over https
 * (`req.secure`, which honours X-Forwarded-Proto behind a proxy named in TRUST_PROXY) it is also
 * Secure and named `__Host-…`.
 */
export function sessionCookie(token: string, maxAgeSeconds: number, secure: boolean): string {
  return `${cookieName(secure)}=${token}; Path=/; Max-Age=${maxAgeSeconds}; HttpOnly; SameSite=Strict${secure ? '; Secure' : ''}`;
}

export const clearedSessionCookie = (secure: boolean): string => sessionCookie('', 0, secure);

/** Where a request comes from, as far as a browser says. */
export type RequestSite = 'same-origin' | 'cross-site' | 'unknown';

/**
 * Where a request comes from, by the headers a browser sets and a page cannot forge:
 * - `cross-site`: a page of another origin made it. `Sec-Fetch-Site: cross-site` or `same-site`
 *   (a sibling subdomain, or this host on another port, is still another origin: not the panel),
 *   or an `Origin` that is not the gateway's own (`null`: a sandboxed or opaque origin).
 * - `same-origin`: the panel itself (`Sec-Fetch-Site: same-origin`, or an `Origin` of the gateway).
 * - `unknown`: no such header: no page's script or form (curl, an SDK, another server, or the
 *   user typing a URL: `Sec-Fetch-Site: none`).
 *
 * The gateway's own origin is `publicOrigin` (PUBLIC_BASE_URL), or the origin the request was
 * addressed to: its Host (X-Forwarded-Host behind a proxy named in TRUST_PROXY) and scheme
 * (X-Forwarded-Proto likewise). When the browser says same-origin, an Origin on the same host
 * passes whatever its scheme: the browser compared it with the URL it fetched, which the gateway
 * behind a TLS proxy not named in TRUST_PROXY sees as http.
 */
export function siteOfRequest(req: Request, publicOrigin?: string): RequestSite {
  const fetchSite = req.get('sec-fetch-site');
  if (fetchSite !== undefined && fetchSite !== 'same-origin' && fetchSite !== 'none') return 'cross-site';
  const origin = req.get('origin');
  if (origin !== undefined) return isOwnOrigin(origin, req, publicOrigin, fetchSite === 'same-origin') ? 'same-origin' : 'cross-site';
  return fetchSite === 'same-origin' ? 'same-origin' : 'unknown';
}

function isOwnOrigin(origin: string, req: Request, publicOrigin: string | undefined, browserSaysSameOrigin: boolean): boolean {
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return false; // `null` (sandboxed frames, some redirects) or garbage: nobody's origin
  }
  if (publicOrigin && url.origin === publicOrigin) return true;
  if (!req.host || url.host !== req.host) return false;
  return browserSaysSameOrigin || url.protocol === `${req.protocol}:`;
}

/**
 * Credentials of any kind (Basic, Bearer, the panel's cookie) arriving with a request another site
 * started. A browser attaches the Basic credentials it stored, and the cookie, to a form another
 * site submits to the gateway (a top-level POST); acting on them would let any page a client's
 * operator visits act as the client. Reads are refused too: the answer would not be readable
 * across origins (no CORS), but a read still tells timing and existence to a page that should
 * learn nothing.
 */
export const crossSiteCredentials = (req: Request, credential: 'Authorization header' | 'session cookie'): AppError => {
  const fetchSite = req.get('sec-fetch-site');
  const why = fetchSite && fetchSite !== 'same-origin' ? `Sec-Fetch-Site: ${fetchSite}` : `Origin ${req.get('origin') ?? ''}`;
  return new AppError(
    403,
    'cross-site-request',
    'Credentials from another site are refused',
    `This request comes from a page on another site (${why}, not this gateway's origin) and carries the ${credential}: a browser sent it, not the client. The API takes credentials from servers (no Origin or Sec-Fetch-Site header) and from the admin panel on this origin; this is a cross-site request.`,
  );
};

/**
 * Whether a request looks like a browser's: it has an Origin, a Sec-Fetch-Site, -Dest or -User
 * header, or accepts HTML (a navigation). Not Sec-Fetch-Mode alone: Node's fetch (undici), which
 * SDKs and servers use, sends `Sec-Fetch-Mode: cors` by itself.
 */
const looksLikeBrowser = (req: Request): boolean =>
  req.get('origin') !== undefined ||
  req.get('sec-fetch-site') !== undefined ||
  req.get('sec-fetch-dest') !== undefined ||
  req.get('sec-fetch-user') !== undefined ||
  /\btext\/html\b/i.test(req.get('accept') ?? '');

/**
 * A browser answers a 401 carrying `WWW-Authenticate: Basic` with its login dialog, or with
 * credentials it stored for the gateway, even for a form another site submitted. Browsers get a
 * Bearer challenge, which they answer with nothing, so the panel shows its sign-in form and no
 * page can make the browser offer a key; curl and SDKs still get Basic.
 */
export const challengeBrowsersWithBearer: ErrorRequestHandler = (error: unknown, req, _res, next) => {
  if (error instanceof UnauthorizedError && looksLikeBrowser(req)) {
    error.headers['WWW-Authenticate'] = 'Bearer realm="postbus"';
  }
  next(error);
};
