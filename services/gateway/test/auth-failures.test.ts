import { basicAuth, call, sleep } from '@postbus/testing';
import { createTestClient, startTestGateway, type TestGateway } from './helpers';

describe('failed authentications are counted per client and address (issue 30)', () => {
  let first: TestGateway;
  let second: TestGateway;

  beforeAll(async () => {
    first = await startTestGateway({ AUTH_FAILURE_LIMIT_PER_MINUTE: '5' });
    second = await startTestGateway({
      AUTH_FAILURE_LIMIT_PER_MINUTE: '5',
      GATEWAY_DB_NAME: first.dbName,
      KAFKA_NAMESPACE: first.namespace,
    });
  });

  afterAll(async () => {
    await second?.stop();
    await first?.stop();
  });

  const projects = (gw: TestGateway, auth: string) => call(gw.url, 'GET', '/v1/projects', { auth }).then((r) => r.status);

  it("when someone at the same address keeps guessing a client's key, the key its backend uses there keeps working, on every instance, and the guesses stay refused", async () => {
    const victim = await createTestClient(first.config);
    // The client's backend is at work from this address (both instances hear it within a share).
    expect(await projects(first, victim.auth)).toBe(200);
    await sleep(300);
    const guess = basicAuth(victim.clientId, 'pb_full_guess');
    for (let i = 0; i < 5; i++) expect(await projects(first, guess)).toBe(401);
    const blocked = await call(first.url, 'GET', '/v1/projects', { auth: guess });
    expect(blocked.status).toBe(429);
    expect(blocked.body.type).toBe('/problems/rate-limited');
    expect(blocked.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(await projects(first, victim.auth)).toBe(200);
    await sleep(300);
    expect(await projects(second, guess)).toBe(429);
    expect(await projects(second, victim.auth)).toBe(200);
  });

  it('another client behind the same address is not locked out by the guesses, and is limited on its own', async () => {
    const victim = await createTestClient(first.config);
    const neighbour = await createTestClient(first.config);
    const guess = basicAuth(victim.clientId, 'pb_full_guess');
    for (let i = 0; i < 6; i++) await projects(first, guess);
    expect(await projects(first, guess)).toBe(429);
    // Its key never authenticated from here before: it works all the same, it is another client.
    expect(await projects(first, neighbour.auth)).toBe(200);
    expect(await projects(first, basicAuth(neighbour.clientId, 'pb_full_wrong'))).toBe(401);
  });

  it('brute force stays capped: once locked, a right key that never authenticated from the address is refused unchecked like a wrong one', async () => {
    const victim = await createTestClient(first.config);
    const guess = basicAuth(victim.clientId, 'pb_full_guess');
    for (let i = 0; i < 5; i++) expect(await projects(first, guess)).toBe(401);
    // The guesser cannot tell a right guess from a wrong one: both are the same 429.
    const right = await call(first.url, 'GET', '/v1/projects', { auth: victim.auth });
    const wrong = await call(first.url, 'GET', '/v1/projects', { auth: guess });
    expect([right.status, wrong.status]).toEqual([429, 429]);
    expect(right.body.detail).toBe(wrong.body.detail);
    await sleep(300);
    expect(await projects(second, victim.auth)).toBe(429);
  });

  it('an admin session (a signed token, nothing to guess) opened by the client is not held up by the lockout', async () => {
    const victim = await createTestClient(first.config);
    const session = await call(first.url, 'POST', '/v1/auth/session', { auth: victim.auth });
    expect(session.status).toBe(201);
    const guess = basicAuth(victim.clientId, 'pb_full_guess');
    for (let i = 0; i < 6; i++) await projects(first, guess);
    expect(await projects(first, guess)).toBe(429);
    expect(await projects(first, `Bearer ${session.body.token as string}`)).toBe(200);
  });
});
