import { call } from '@postbus/testing';
import { createTestClient, startTestGateway, type TestClient, type TestGateway } from './helpers';

describe("the admin panel's cookie session (issue 15)", () => {
  let gw: TestGateway;
  let acme: TestClient;
  let cookie: string;
  let host: string;

  beforeAll(async () => {
    // Loopback is the proxy here, so X-Forwarded-Proto says whether the browser used https.
    gw = await startTestGateway({ TRUST_PROXY: 'loopback' });
    acme = await createTestClient(gw.config);
    host = new URL(gw.url).host;
    const opened = await call(gw.url, 'POST', '/v1/auth/session/cookie', { auth: acme.auth });
    expect(opened.status).toBe(201);
    cookie = (opened.headers.get('set-cookie') ?? '').split(';')[0]!;
  });

  afterAll(async () => {
    await gw?.stop();
  });

  /** What a browser sends with the panel's own fetches. */
  const fromPanel = (): Record<string, string> => ({ cookie, 'sec-fetch-site': 'same-origin' });

  it('when the panel signs in, then the session is an HttpOnly SameSite=Strict cookie, never in the body, and it reads', async () => {
    const opened = await call(gw.url, 'POST', '/v1/auth/session/cookie', { auth: acme.auth });
    expect(opened.status).toBe(201);
    expect(opened.body).toEqual({ token_type: 'Cookie', expires_at: expect.any(String), scope: 'full' });
    const setCookie = opened.headers.get('set-cookie') ?? '';
    expect(setCookie).toMatch(/^postbus_session=ey[\w-]+\.[\w-]+\.[\w-]+; Path=\/; Max-Age=\d+; HttpOnly; SameSite=Strict$/);
    const me = await call(gw.url, 'GET', '/v1/auth/session', { headers: fromPanel() });
    expect(me.status).toBe(200);
    expect(me.body).toEqual({ client_id: acme.clientId, scope: 'full', via: 'session' });
    expect((await call(gw.url, 'GET', '/v1/projects', { headers: fromPanel() })).status).toBe(200);
  });

  it('without the headers a browser sets (curl, or an SDK that kept the cookie), the cookie is no credential: 401', async () => {
    expect((await call(gw.url, 'GET', '/v1/projects', { headers: { cookie } })).status).toBe(401);
    expect((await call(gw.url, 'POST', '/v1/projects', { headers: { cookie }, json: { name: 'x' } })).status).toBe(401);
  });

  it('when the request came over https (behind the trusted proxy), then the cookie is Secure', async () => {
    const opened = await call(gw.url, 'POST', '/v1/auth/session/cookie', { auth: acme.auth, headers: { 'x-forwarded-proto': 'https' } });
    expect(opened.headers.get('set-cookie')).toMatch(/; Secure$/);
  });

  it('over https (the trusted proxy says so) the session is the __Host- cookie: Secure, Path=/, no Domain; the panel signs in and works with it', async () => {
    const https = { 'x-forwarded-proto': 'https' };
    const opened = await call(gw.url, 'POST', '/v1/auth/session/cookie', { auth: acme.auth, headers: https });
    expect(opened.status).toBe(201);
    const setCookie = opened.headers.get('set-cookie') ?? '';
    expect(setCookie).toMatch(/^__Host-postbus_session=ey[\w-]+\.[\w-]+\.[\w-]+; Path=\/; Max-Age=\d+; HttpOnly; SameSite=Strict; Secure$/);
    expect(setCookie).not.toMatch(/Domain=/i);
    const secureCookie = setCookie.split(';')[0]!;
    const panel = { ...https, cookie: secureCookie, 'sec-fetch-site': 'same-origin' };
    const me = await call(gw.url, 'GET', '/v1/auth/session', { headers: panel });
    expect(me.status).toBe(200);
    expect(me.body).toEqual({ client_id: acme.clientId, scope: 'full', via: 'session' });
    const created = await call(gw.url, 'POST', '/v1/projects', {
      headers: { ...panel, origin: `https://${host}` },
      json: { name: 'Over https' },
    });
    expect(created.status).toBe(201);
    // Over https an unprefixed cookie (which a sibling subdomain or an http page could have set) is no session.
    const planted = secureCookie.replace(/^__Host-/, '');
    expect((await call(gw.url, 'GET', '/v1/projects', { headers: { ...panel, cookie: planted } })).status).toBe(401);
    // Signing out over https clears the __Host- cookie.
    const out = await call(gw.url, 'DELETE', '/v1/auth/session', { headers: panel });
    expect(out.status).toBe(204);
    expect(out.headers.get('set-cookie')).toMatch(/^__Host-postbus_session=; Path=\/; Max-Age=0; HttpOnly; SameSite=Strict; Secure$/);
  });

  it('a request with the cookie from another site is refused with 403, a read as well as a write; from this origin it passes', async () => {
    const project = { json: { name: 'From the panel' } };
    const crossSite: Array<Record<string, string>> = [
      { origin: 'https://evil.example' },
      { origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' },
      { origin: 'https://admin.sibling.example', 'sec-fetch-site': 'same-site' },
    ];
    for (const headers of crossSite) {
      const refused = await call(gw.url, 'POST', '/v1/projects', { ...project, headers: { cookie, ...headers } });
      expect(refused.status).toBe(403);
      expect(refused.body.detail).toMatch(/cross-site/);
    }
    expect((await call(gw.url, 'GET', '/v1/projects', { headers: { cookie, 'sec-fetch-site': 'same-site' } })).status).toBe(403);
    expect((await call(gw.url, 'POST', '/v1/projects', { ...project, headers: { cookie, origin: `http://${host}` } })).status).toBe(201);
    expect((await call(gw.url, 'POST', '/v1/projects', { ...project, headers: fromPanel() })).status).toBe(201);
  });

  it('a session may unsubscribe a user (the panel acts for support), but not make other data-plane writes', async () => {
    const project = await call(gw.url, 'POST', '/v1/projects', { auth: acme.auth, json: { name: 'Support' } });
    const p = `/v1/projects/${project.body.id as string}`;
    const unsubscribed = await call(gw.url, 'POST', `${p}/users/unsubscribe`, { headers: fromPanel(), json: { email: 'ada@example.com' } });
    expect(unsubscribed.status).toBe(200);
    expect(unsubscribed.body.status).toBe('accepted');
    const created = await call(gw.url, 'POST', `${p}/users`, { headers: fromPanel(), json: { email: 'ada@example.com' } });
    expect(created.status).toBe(401);
    expect(created.body.detail).toMatch(/API key/);
    const doc = await call(gw.url, 'GET', '/v1/openapi.json');
    expect(doc.body.paths['/v1/projects/{projectId}/users/unsubscribe'].post.security).toContainEqual({ sessionCookie: [] });
    expect(doc.body.paths['/v1/projects/{projectId}/users/erase'].post.security).toContainEqual({ sessionCookie: [] });
    expect(doc.body.paths['/v1/projects/{projectId}/users'].post.security).toEqual([{ basic: [] }]);
  });

  it("a wrong key is a 401; a script's fetch is challenged with Bearer so the browser shows no Basic login dialog", async () => {
    const wrong = `Basic ${Buffer.from(`${acme.clientId}:pb_full_wrong`).toString('base64')}`;
    const fromCurl = await call(gw.url, 'POST', '/v1/auth/session/cookie', { auth: wrong });
    expect(fromCurl.status).toBe(401);
    expect(fromCurl.headers.get('www-authenticate')).toMatch(/^Basic/);
    expect(fromCurl.headers.get('set-cookie')).toBeNull();
    const fromScript = await call(gw.url, 'POST', '/v1/auth/session/cookie', { auth: wrong, headers: { 'sec-fetch-dest': 'empty' } });
    expect(fromScript.status).toBe(401);
    expect(fromScript.headers.get('www-authenticate')).toMatch(/^Bearer/);
  });

  it('an invalid cookie is a 401 that also clears it; signing out clears a valid one', async () => {
    const stale = await call(gw.url, 'GET', '/v1/projects', {
      headers: { cookie: 'postbus_session=garbage', 'sec-fetch-site': 'same-origin' },
    });
    expect(stale.status).toBe(401);
    expect(stale.headers.get('set-cookie')).toMatch(/^postbus_session=; Path=\/; Max-Age=0; HttpOnly; SameSite=Strict/);
    const out = await call(gw.url, 'DELETE', '/v1/auth/session', { headers: fromPanel() });
    expect(out.status).toBe(204);
    expect(out.headers.get('set-cookie')).toMatch(/^postbus_session=; Path=\/; Max-Age=0/);
  });
});
