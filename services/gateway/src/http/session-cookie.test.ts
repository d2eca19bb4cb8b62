import type { NextFunction, Request, Response } from 'express';
import { ForbiddenError, UnauthorizedError } from '@postbus/errors';
import { acceptsSession } from './route';
import { challengeBrowsersWithBearer, sessionCookie, sessionCookieOf, siteOfRequest } from './session-cookie';

const request = (headers: Record<string, string>, host = 'postbus.example:8080', protocol = 'http') =>
  ({ host, protocol, get: (name: string) => headers[name.toLowerCase()] }) as unknown as Request;

describe('the session cookie', () => {
  it('is HttpOnly, SameSite=Strict, Path=/, and Secure only over https', () => {
    expect(sessionCookie('t.o.k', 900, false)).toBe('postbus_session=t.o.k; Path=/; Max-Age=900; HttpOnly; SameSite=Strict');
    expect(sessionCookie('t.o.k', 900, true)).toMatch(/; Secure$/);
  });

  it('is found among other cookies, and an empty one is none', () => {
    expect(sessionCookieOf('a=1; postbus_session=abc.def; b=2')).toBe('abc.def');
    expect(sessionCookieOf('postbus_session=')).toBeUndefined();
    expect(sessionCookieOf('xpostbus_session=abc')).toBeUndefined();
    expect(sessionCookieOf(undefined)).toBeUndefined();
  });

  it('counts only when the browser says the request comes from this origin; another site is refused; no browser, no cookie', () => {
    expect(siteOfRequest(request({ 'sec-fetch-site': 'same-origin' }))).toBe('same-origin');
    expect(siteOfRequest(request({ origin: 'http://postbus.example:8080' }))).toBe('same-origin');
    for (const headers of [
      { origin: 'https://evil.example' } as Record<string, string>,
      { origin: 'http://postbus.example:9999' },
      { origin: 'null' },
      { 'sec-fetch-site': 'same-site', origin: 'https://other.postbus.example' },
      { 'sec-fetch-site': 'cross-site' },
    ]) {
      expect(siteOfRequest(request(headers))).toBe('cross-site');
    }
    expect(siteOfRequest(request({}))).toBe('unknown');
    expect(siteOfRequest(request({ 'sec-fetch-site': 'none' }))).toBe('unknown');
  });

  it('over https it is __Host-postbus_session: Secure, Path=/, no Domain; each scheme reads only its own name', () => {
    const cookie = sessionCookie('t.o.k', 900, true);
    expect(cookie).toBe('__Host-postbus_session=t.o.k; Path=/; Max-Age=900; HttpOnly; SameSite=Strict; Secure');
    expect(cookie).not.toMatch(/Domain=/i);
    const both = 'postbus_session=planted; __Host-postbus_session=real';
    expect(sessionCookieOf(both, true)).toBe('real');
    expect(sessionCookieOf(both, false)).toBe('planted');
    expect(sessionCookieOf('postbus_session=planted', true)).toBeUndefined();
    expect(sessionCookieOf('__Host-postbus_session=real', false)).toBeUndefined();
  });
});

describe('where a request with credentials comes from (issue 30)', () => {
  it("an Origin is the gateway's own when it is the addressed origin (host and scheme) or PUBLIC_BASE_URL", () => {
    expect(siteOfRequest(request({ origin: 'https://postbus.example:8080' }, 'postbus.example:8080', 'https'))).toBe('same-origin');
    expect(siteOfRequest(request({ origin: 'https://mail.example.com' }), 'https://mail.example.com')).toBe('same-origin');
    // http page of the same host talking to the gateway over https: another origin
    expect(siteOfRequest(request({ origin: 'http://postbus.example:8080' }, 'postbus.example:8080', 'https'))).toBe('cross-site');
    expect(siteOfRequest(request({ origin: 'https://evil.example' }), 'https://mail.example.com')).toBe('cross-site');
    expect(siteOfRequest(request({ origin: 'not a url' }))).toBe('cross-site');
  });

  it('the browser saying same-origin settles the scheme (behind a TLS proxy the gateway sees http), never the host', () => {
    const behindProxy = (origin: string) => request({ origin, 'sec-fetch-site': 'same-origin' }, 'postbus.example:8080', 'http');
    expect(siteOfRequest(behindProxy('https://postbus.example:8080'))).toBe('same-origin');
    expect(siteOfRequest(behindProxy('https://evil.example'))).toBe('cross-site');
  });

  it('same-site is another origin (a sibling subdomain, this host on another port), whatever the Origin says', () => {
    expect(siteOfRequest(request({ 'sec-fetch-site': 'same-site', origin: 'http://postbus.example:8080' }))).toBe('cross-site');
    expect(siteOfRequest(request({ 'sec-fetch-site': 'cross-site' }), 'https://mail.example.com')).toBe('cross-site');
  });
});

describe('the 401 challenge', () => {
  const challenge = (headers: Record<string, string>, error: Error = new UnauthorizedError()) => {
    let passed: unknown;
    challengeBrowsersWithBearer(error, request(headers), {} as Response, ((e: unknown) => (passed = e)) as NextFunction);
    return passed instanceof UnauthorizedError ? passed.headers['WWW-Authenticate'] : undefined;
  };

  it('is Bearer for anything that looks like a browser, so no stored or typed Basic credentials are offered', () => {
    for (const headers of [
      { origin: 'https://evil.example' },
      { 'sec-fetch-site': 'cross-site' },
      { 'sec-fetch-dest': 'empty' },
      { 'sec-fetch-user': '?1' },
      { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' },
    ] as Array<Record<string, string>>)
      expect([headers, challenge(headers)]).toEqual([headers, 'Bearer realm="postbus"']);
  });

  it("stays Basic for curl, SDKs and servers, Node's fetch included (it sends Sec-Fetch-Mode: cors by itself)", () => {
    expect(challenge({})).toMatch(/^Basic /);
    expect(challenge({ accept: 'application/json' })).toMatch(/^Basic /);
    expect(challenge({ accept: '*/*', 'sec-fetch-mode': 'cors' })).toMatch(/^Basic /);
  });

  it('leaves other errors alone', () => {
    const forbidden = new ForbiddenError('no');
    let passed: unknown;
    challengeBrowsersWithBearer(forbidden, request({ origin: 'x' }), {} as Response, ((e: unknown) => (passed = e)) as NextFunction);
    expect(passed).toBe(forbidden);
    expect(forbidden.headers).toEqual({});
  });
});

describe('what admin sessions may call', () => {
  it('management and reads, and of the data-plane writes only those marked for sessions, with scope full', () => {
    expect(acceptsSession({ scope: 'full', method: 'post' })).toBe(true);
    expect(acceptsSession({ scope: 'sdk', method: 'get' })).toBe(true);
    expect(acceptsSession({ scope: 'sdk', method: 'post' })).toBe(false);
    expect(acceptsSession({ scope: 'sdk', method: 'post', sessionsMayCall: true }, 'full')).toBe(true);
    expect(acceptsSession({ scope: 'sdk', method: 'post', sessionsMayCall: true }, 'sdk')).toBe(false);
    expect(acceptsSession({ scope: 'full', method: 'post', keyOnly: true })).toBe(false);
  });
});
