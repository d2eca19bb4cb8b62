import { call, freePort } from '@postbus/testing';
import { createTestClient, startTestGateway, type TestClient, type TestGateway } from './helpers';

describe('the gateway answers what its OpenAPI document says (issue 13, item 12)', () => {
  let gw: TestGateway;
  let client: TestClient;

  beforeAll(async () => {
    // Resolvers that do not answer: nothing listens on this port.
    gw = await startTestGateway({ DNS_SERVERS: `127.0.0.1:${await freePort()}` });
    client = await createTestClient(gw.config);
  });

  afterAll(async () => {
    await gw?.stop();
  });

  it('13.12 when the DNS servers cannot be reached, verifying a domain is a 503 with Retry-After, not a 500', async () => {
    const created = await call(gw.url, 'POST', '/v1/sender-domains', { auth: client.auth, json: { domain: 'mail.unreachable.example' } });
    expect(created.status).toBe(201);
    const verified = await call(gw.url, 'POST', `/v1/sender-domains/${created.body.id as string}/verify`, { auth: client.auth });
    expect(verified.status).toBe(503);
    expect(verified.headers.get('retry-after')).toEqual(expect.any(String));
    expect(verified.body.detail).toMatch(/DNS servers did not answer/);
  }, 30_000);

  it('13.12 a method a path does not have (OPTIONS, DELETE, GET on a POST-only path) is a 405 whose Allow lists exactly its methods', async () => {
    const byEmail = await call(gw.url, 'OPTIONS', '/v1/projects/000000000000000000000000/users/by-email', { auth: client.auth });
    expect(byEmail.status).toBe(405);
    expect(byEmail.headers.get('allow')).toBe('PATCH');
    const session = await call(gw.url, 'DELETE', '/v1/auth/session/cookie', { auth: client.auth });
    expect(session.status).toBe(405);
    expect(session.headers.get('allow')).toBe('POST');
    const sendPage = await call(gw.url, 'GET', '/v1/projects/000000000000000000000000/emails/welcome/send', { auth: client.auth });
    expect(sendPage.status).toBe(405);
    expect(sendPage.headers.get('allow')).toBe('POST');
    expect((await call(gw.url, 'GET', '/v1/no-such-thing', { auth: client.auth })).status).toBe(404);
  });

  it('13.12 the document states the Idempotency-Key rule the server enforces, and a query naming neither email nor user_id is a 422', async () => {
    const doc = await call(gw.url, 'GET', '/v1/openapi.json');
    const header = (
      doc.body.paths['/v1/projects/{projectId}/users'].post.parameters as Array<{ name: string; schema: { pattern?: string } }>
    ).find((p) => p.name === 'Idempotency-Key');
    expect(header?.schema.pattern).toBe('^[!-~]{1,255}$');
    const bad = await call(gw.url, 'POST', '/v1/projects', {
      auth: client.auth,
      json: { name: 'x' },
      headers: { 'idempotency-key': 'with space' },
    });
    expect(bad.status).toBe(400);
    const projects = await call(gw.url, 'POST', '/v1/projects', { auth: client.auth, json: { name: 'Query rules' } });
    const payments = await call(gw.url, 'GET', `/v1/projects/${projects.body.id as string}/payments`, { auth: client.auth });
    expect(payments.status).toBe(422);
    expect(doc.body.paths['/v1/projects/{projectId}/payments'].get.responses['422']).toBeDefined();
  });
});
