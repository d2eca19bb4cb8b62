import type { Request } from 'express';
import { acceptsSession } from './route';
import { sessionCookie, sessionCookieOf, siteOfCookieRequest } from './session-cookie';

const request = (headers: Record<string, string>, host = 'postbus.example:8080') =>
  ({ host, get: (name: string) => headers[name.toLowerCase()] }) as unknown as Request;

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
    expect(siteOfCookieRequest(request({ 'sec-fetch-site': 'same-origin' }))).toBe('same-origin');
    expect(siteOfCookieRequest(request({ origin: 'http://postbus.example:8080' }))).toBe('same-origin');
    for (const headers of [
      { origin: 'https://evil.example' } as Record<string, string>,
      { origin: 'http://postbus.example:9999' },
      { origin: 'null' },
      { 'sec-fetch-site': 'same-site', origin: 'https://other.postbus.example' },
      { 'sec-fetch-site': 'cross-site' },
    ]) {
      expect(siteOfCookieRequest(request(headers))).toBe('cross-site');
    }
    expect(siteOfCookieRequest(request({}))).toBe('unknown');
    expect(siteOfCookieRequest(request({ 'sec-fetch-site': 'none' }))).toBe('unknown');
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
