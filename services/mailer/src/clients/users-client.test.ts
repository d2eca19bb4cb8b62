import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { InternalTokens, internalTokenVerifier } from '@postbus/http';
import type { Logger } from '@postbus/logger';
import { UsersClient } from './users-client';

const SECRET = 'a-shared-internal-secret-for-the-test';

/** A users service that answers by path, checking the token as the real one does. */
function usersService(answer: (path: string) => { status: number; body?: unknown; afterMs?: number }) {
  const verify = internalTokenVerifier({ secret: SECRET, audience: 'users' });
  const seen: string[] = [];
  const server: Server = createServer((req, res) => {
    void (async () => {
      const why = await verify((req.headers.authorization ?? '').replace(/^Bearer /, ''));
      if (why !== undefined) {
        res.writeHead(401).end();
        return;
      }
      seen.push(req.url ?? '');
      const { status, body, afterMs = 0 } = answer(req.url ?? '');
      setTimeout(
        () => res.writeHead(status, { 'content-type': 'application/json' }).end(body === undefined ? '' : JSON.stringify(body)),
        afterMs,
      );
    })();
  });
  return { server, seen };
}

describe('UsersClient (the stored profile language)', () => {
  const warnings: Array<{ message: string; meta: Record<string, unknown> }> = [];
  const logger = {
    warn: (message: string, meta: Record<string, unknown>) => warnings.push({ message, meta }),
  } as unknown as Logger;
  const { server, seen } = usersService((path) => {
    if (path === '/internal/projects/p1/users/u%2F1') return { status: 200, body: { language: 'pt-BR', email: 'ann@example.org' } };
    if (path === '/internal/projects/p1/users?email=bo%2Btag%40example.org') return { status: 200, body: { language: null } };
    if (path.startsWith('/internal/projects/p-slow/')) return { status: 200, body: { language: 'de' }, afterMs: 1_000 };
    if (path.startsWith('/internal/projects/p-broken/')) return { status: 500, body: { detail: 'ann@example.org' } };
    if (path.startsWith('/internal/projects/p-garbled/')) return { status: 200, body: undefined };
    return { status: 404, body: { detail: 'No user' } };
  });
  let client: UsersClient;

  beforeAll(async () => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    client = new UsersClient(`http://127.0.0.1:${port}/`, new InternalTokens(SECRET, 'mailer'), logger, 200);
  });

  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  beforeEach(() => {
    warnings.length = 0;
  });

  it('reads the profile by user_id when the message names one, else by address, and gives its language', async () => {
    expect(await client.languageOf('p1', { userId: 'u/1', email: 'ann@example.org' })).toBe('pt-BR');
    expect(await client.languageOf('p1', { userId: null, email: 'bo+tag@example.org' })).toBeNull();
    expect(seen.slice(-2)).toEqual(['/internal/projects/p1/users/u%2F1', '/internal/projects/p1/users?email=bo%2Btag%40example.org']);
    expect(warnings).toEqual([]);
  });

  it('no such user is no language, and nothing to warn of (a first send registers them as it goes)', async () => {
    expect(await client.languageOf('p1', { userId: null, email: 'new@example.org' })).toBeNull();
    expect(warnings).toEqual([]);
  });

  it('a failure, a garbled answer or no answer in time is no language, with a warning naming the project and never the user', async () => {
    const started = Date.now();
    expect(await client.languageOf('p-slow', { userId: 'u-1', email: 'ann@example.org' })).toBeNull();
    expect(Date.now() - started).toBeLessThan(900);
    expect(await client.languageOf('p-broken', { userId: 'u-1', email: 'ann@example.org' })).toBeNull();
    expect(await client.languageOf('p-garbled', { userId: 'u-1', email: 'ann@example.org' })).toBeNull();
    expect(warnings.map((w) => w.meta)).toEqual([
      { projectId: 'p-slow', reason: 'no answer within 200 ms' },
      { projectId: 'p-broken', status: 500 },
      { projectId: 'p-garbled', reason: 'not a JSON answer' },
    ]);
    expect(JSON.stringify(warnings)).not.toMatch(/ann@|u-1/);
  });

  it('an unreachable users service is no language', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const { port } = closed.address() as AddressInfo;
    await new Promise((resolve) => closed.close(resolve));
    const gone = new UsersClient(`http://127.0.0.1:${port}`, new InternalTokens(SECRET, 'mailer'), logger, 200);
    expect(await gone.languageOf('p1', { userId: null, email: 'ann@example.org' })).toBeNull();
    expect(warnings).toEqual([{ message: expect.any(String), meta: { projectId: 'p1', reason: 'ECONNREFUSED' } }]);
  });
});
