import type { Request } from 'express';
import { ForbiddenError } from '@postbus/errors';
import { acceptsSession } from './route';
import { assertSameOrigin, sessionCookie, sessionCookieOf } from './session-cookie';

const request = (method: string, headers: Record<string, string>, host = 'postbus.example:8080') =>
  ({ method, host, get: (name: string) => headers[name.toLowerCase()] }) as unknown as Request;

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

  it('a write made with it must come from this origin; reads need no proof', () => {
    expect(() => assertSameOrigin(request('GET', {}))).not.toThrow();
    expect(() => assertSameOrigin(request('POST', { origin: 'http://postbus.example:8080' }))).not.toThrow();
    expect(() => assertSameOrigin(request('DELETE', { 'sec-fetch-site': 'same-origin' }))).not.toThrow();
    for (const headers of [
      {} as Record<string, string>,
      { origin: 'https://evil.example' },
      { origin: 'http://postbus.example:9999' },
      { origin: 'null' },
      { 'sec-fetch-site': 'same-site', origin: 'https://other.postbus.example' },
    ]) {
      expect(() => assertSameOrigin(request('POST', headers))).toThrow(ForbiddenError);
    }
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
