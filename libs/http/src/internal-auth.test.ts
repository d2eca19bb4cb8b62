import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { SignJWT } from 'jose';
import { createLogger } from '@postbus/logger';
import { InternalTokens, requireInternalToken } from './internal-auth';
import { problemHandler } from './problems';

const SECRET = 'a-test-secret-of-more-than-thirty-two-characters';

describe('internal API tokens', () => {
  let server: Server;
  let url: string;

  beforeAll(async () => {
    const app = express();
    app.get('/healthz', (_req, res) => void res.json({ status: 'ok' }));
    app.use('/internal', requireInternalToken({ secret: SECRET, audience: 'users' }));
    app.get('/internal/projects/:projectId/users', (req, res) => void res.json({ project: req.params.projectId }));
    app.use(problemHandler(createLogger({ service: 'test', level: 'error' })));
    server = await new Promise<Server>((resolve) => {
      const s = app.listen(0, '127.0.0.1', () => resolve(s));
    });
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(() => new Promise((resolve) => server.close(resolve)));

  const get = (path: string, authorization?: string) => fetch(`${url}${path}`, authorization ? { headers: { authorization } } : {});
  const sign = (claims: { aud?: string; iss?: string; exp?: number }, secret = SECRET, alg = 'HS256') => {
    let jwt = new SignJWT({}).setProtectedHeader({ alg }).setIssuedAt();
    if (claims.aud) jwt = jwt.setAudience(claims.aud);
    if (claims.iss) jwt = jwt.setIssuer(claims.iss);
    if (claims.exp !== undefined) jwt = jwt.setExpirationTime(claims.exp);
    return jwt.sign(new TextEncoder().encode(secret)).then((t) => `Bearer ${t}`);
  };
  const inAMinute = () => Math.floor(Date.now() / 1000) + 60;

  it('13.1 internal APIs: a call without a valid internal token is refused with 401', async () => {
    const cases: Array<[string, string | undefined]> = [
      ['no header', undefined],
      ['Basic credentials', 'Basic Y2w6a2V5'],
      ['not a JWT', 'Bearer nonsense'],
      ['another secret', await sign({ aud: 'users', iss: 'gateway', exp: inAMinute() }, 'another-secret-of-more-than-thirty-two-chars')],
      ['another service', await sign({ aud: 'mailer', iss: 'gateway', exp: inAMinute() })],
      ['expired', await sign({ aud: 'users', iss: 'gateway', exp: Math.floor(Date.now() / 1000) - 60 })],
      ['no expiry', await sign({ aud: 'users', iss: 'gateway' })],
      ['HS512', await sign({ aud: 'users', iss: 'gateway', exp: inAMinute() }, SECRET, 'HS512')],
    ];
    for (const [what, authorization] of cases) {
      const res = await get('/internal/projects/p1/users', authorization);
      expect([what, res.status]).toEqual([what, 401]);
      expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      expect(res.headers.get('www-authenticate')).toMatch(/^Bearer/);
      expect(await res.json()).toMatchObject({ status: 401, type: '/problems/unauthorized' });
    }
  });

  it('when the caller sends a token minted with the shared secret for this service, then the call is answered', async () => {
    const tokens = new InternalTokens(SECRET, 'gateway');
    const res = await get('/internal/projects/p1/users', await tokens.authorization('users'));
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ project: 'p1' });
    // verified once, then recognised
    expect((await get('/internal/projects/p2/users', await tokens.authorization('users'))).status).toBe(200);
  });

  it('when a route is not internal (health), then it needs no token', async () => {
    expect((await get('/healthz')).status).toBe(200);
  });

  it('mints one token per service and reuses it until shortly before it expires', async () => {
    const tokens = new InternalTokens(SECRET, 'gateway', 20);
    const first = await tokens.authorization('users');
    expect(await tokens.authorization('users')).toBe(first);
    expect(await tokens.authorization('mailer')).not.toBe(first);
    const payload = JSON.parse(Buffer.from(first.split('.')[1]!, 'base64url').toString()) as Record<string, unknown>;
    expect(payload).toMatchObject({ aud: 'users', iss: 'gateway' });
    expect((payload['exp'] as number) - (payload['iat'] as number)).toBe(20);
    jest.useFakeTimers({ now: Date.now() + 6_000, doNotFake: ['nextTick', 'setImmediate', 'queueMicrotask'] });
    try {
      expect(await tokens.authorization('users')).not.toBe(first);
    } finally {
      jest.useRealTimers();
    }
  });
});
