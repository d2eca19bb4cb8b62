import { call } from '@postbus/testing';
import { createTestClient, startTestGateway, type TestClient, type TestGateway } from './helpers';

describe('credentials that a browser sends from another site (issue 30)', () => {
  let gw: TestGateway;
  let acme: TestClient;
  let own: string;
  let bearer: string;

  beforeAll(async () => {
    // Loopback is the proxy here, so X-Forwarded-Proto says whether the browser used https.
    gw = await startTestGateway({ TRUST_PROXY: 'loopback', PUBLIC_BASE_URL: 'https://mail.postbus.example' });
    acme = await createTestClient(gw.config);
    own = gw.url;
    const session = await call(gw.url, 'POST', '/v1/auth/session', { auth: acme.auth });
    expect(session.status).toBe(201);
    bearer = `Bearer ${session.body.token as string}`;
  });

  afterAll(async () => {
    await gw?.stop();
  });

  const fromBrowser = (auth: string, headers: Record<string, string>) => call(gw.url, 'GET', '/v1/projects', { auth, headers });

  it('Basic and Bearer from a page of another origin are a 403 problem naming why, reads and writes alike', async () => {
    const foreign: Array<Record<string, string>> = [
      { origin: 'https://evil.example' },
      { origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' },
      { 'sec-fetch-site': 'cross-site' },
      // a sibling app: this host on another port, or another subdomain of the same site
      { origin: 'http://127.0.0.1:1', 'sec-fetch-site': 'same-site' },
      { 'sec-fetch-site': 'same-site' },
      { origin: 'null' },
    ];
    for (const headers of foreign) {
      for (const auth of [acme.auth, bearer]) {
        const read = await fromBrowser(auth, headers);
        expect([headers, auth.split(' ')[0], read.status]).toEqual([headers, auth.split(' ')[0], 403]);
        expect(read.headers.get('content-type')).toMatch(/^application\/problem\+json/);
        expect(read.body).toMatchObject({ type: '/problems/cross-site-request', status: 403 });
        expect(read.body.detail).toMatch(/another site/);
        expect(read.body.detail).toMatch(headers['sec-fetch-site'] ? /Sec-Fetch-Site/ : /Origin/);
      }
    }
    const rotate = await call(gw.url, 'POST', '/v1/webhooks/we_0123456789abcdef01234567/rotate-secret', {
      auth: acme.auth,
      headers: { origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' },
    });
    expect(rotate.status).toBe(403);
    const test = await call(gw.url, 'POST', '/v1/webhooks/we_0123456789abcdef01234567/test', {
      auth: acme.auth,
      headers: { origin: 'https://evil.example' },
    });
    expect(test.status).toBe(403);
  });

  it("from the gateway's own origin (as addressed, or PUBLIC_BASE_URL), from servers and from a typed URL, the credentials count", async () => {
    const ownOrigins: Array<Record<string, string>> = [
      {}, // curl, an SDK, a server
      { 'sec-fetch-mode': 'cors' }, // Node's fetch adds this by itself
      { 'sec-fetch-site': 'none' }, // the user typed the URL
      { 'sec-fetch-site': 'same-origin' },
      { origin: own },
      { origin: own, 'sec-fetch-site': 'same-origin' },
      { origin: 'https://mail.postbus.example' },
      // behind the trusted TLS proxy the addressed origin is https
      { origin: own.replace('http:', 'https:'), 'x-forwarded-proto': 'https' },
      // and the proxy may name the public host
      { origin: 'https://api.postbus.example', 'x-forwarded-proto': 'https', 'x-forwarded-host': 'api.postbus.example' },
    ];
    for (const headers of ownOrigins) {
      for (const auth of [acme.auth, bearer]) {
        const read = await fromBrowser(auth, headers);
        expect([headers, auth.split(' ')[0], read.status]).toEqual([headers, auth.split(' ')[0], 200]);
      }
    }
  });

  it('an Origin on this host with another scheme is another origin, unless the browser itself says same-origin', async () => {
    const https = own.replace('http:', 'https:');
    expect((await fromBrowser(acme.auth, { origin: https })).status).toBe(403);
    expect((await fromBrowser(acme.auth, { origin: https, 'sec-fetch-site': 'same-origin' })).status).toBe(200);
    expect((await fromBrowser(acme.auth, { origin: 'https://evil.example', 'sec-fetch-site': 'same-origin' })).status).toBe(403);
  });

  it('a 401 challenges browsers with Bearer (they offer no stored credentials for it) and everything else with Basic', async () => {
    const browserLike: Array<Record<string, string>> = [
      { origin: 'https://evil.example', 'sec-fetch-site': 'cross-site', 'sec-fetch-dest': 'document' },
      { 'sec-fetch-site': 'none', 'sec-fetch-dest': 'document', accept: 'text/html,application/xhtml+xml;q=0.9,*/*;q=0.8' },
      { accept: 'text/html' }, // an old browser over plain http: no Sec-Fetch-* headers there
      { origin: own },
    ];
    for (const headers of browserLike) {
      const res = await call(gw.url, 'POST', '/v1/webhooks/we_0123456789abcdef01234567/test', { headers });
      expect([headers, res.status, res.headers.get('www-authenticate')]).toEqual([headers, 401, 'Bearer realm="postbus"']);
    }
    for (const headers of [{}, { accept: 'application/json' }, { 'sec-fetch-mode': 'cors' }] as Array<Record<string, string>>) {
      const res = await call(gw.url, 'GET', '/v1/projects', { headers });
      expect([headers, res.status, res.headers.get('www-authenticate')]).toEqual([headers, 401, expect.stringMatching(/^Basic /)]);
    }
    // A wrong key from a browser: a 401 with Bearer as well, never a dialog offering to retry.
    const wrong = `Basic ${Buffer.from(`${acme.clientId}:pb_full_wrong`).toString('base64')}`;
    const fromPage = await call(gw.url, 'GET', '/v1/projects', { auth: wrong, headers: { 'sec-fetch-site': 'same-origin' } });
    expect(fromPage.status).toBe(401);
    expect(fromPage.headers.get('www-authenticate')).toBe('Bearer realm="postbus"');
  });

  it('the public edge (/t/*, no credentials) answers pages of any origin as before', async () => {
    const res = await call(gw.url, 'GET', '/t/o/not-a-token', {
      headers: { origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' },
    });
    expect(res.status).toBe(404);
    const docs = await call(gw.url, 'GET', '/v1/openapi.json', {
      headers: { origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' },
    });
    expect(docs.status).toBe(200);
  });
});
