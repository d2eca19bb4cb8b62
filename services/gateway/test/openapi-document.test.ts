import { call } from '@postbus/testing';
import { apiDocument } from '../src/http/api-routes';
import { createTestClient, startTestGateway, type TestGateway } from './helpers';

interface Layer {
  rawPath?: string;
  route?: { path: string; methods: Record<string, boolean> };
  handle: { stack?: Layer[] };
}

/** Method and path of every route on an express app, through mounted routers (`:param` as `{param}`). */
function registeredRoutes(stack: Layer[], prefix = ''): string[] {
  return stack.flatMap((layer) => {
    if (layer.route) {
      const { path, methods } = layer.route;
      return Object.keys(methods)
        .filter((method) => methods[method])
        .map((method) => `${method.toUpperCase()} ${prefix}${path.replace(/:(\w+)/g, '{$1}')}`);
    }
    const mounted = layer.rawPath && layer.rawPath !== '/' ? layer.rawPath : '';
    return layer.handle.stack ? registeredRoutes(layer.handle.stack, prefix + mounted) : [];
  });
}

/**
 * The gateway's routes that are not part of the public API and so not in the document: the
 * document itself, the public edge (open pixel, click redirect, unsubscribe page and one-click
 * unsubscribe: links inside emails, no credentials), health probes, the docs page, the admin
 * panel's static files and the frame it shows an email in (the content route's HTML as a page).
 * (/metrics is on the internal listener, not on this app.)
 */
const NOT_IN_THE_DOCUMENT = new Set([
  'GET /v1/openapi.json',
  // The compatible APIs' own documents (their routes are in them).
  'GET /v1/openapi/postmark.json',
  'GET /v1/openapi/resend.json',
  'GET /t/o/{token}',
  'GET /t/c/{token}',
  'GET /t/u/{token}',
  'POST /t/u/{token}',
  'GET /healthz',
  'GET /readyz',
  'GET /docs',
  'GET /docs/init.js',
  'GET /admin',
  'GET /admin/',
  'GET /admin/frames/email/{projectId}/{messageId}',
  'POST /admin/frames/template-preview/{projectId}',
  'GET /admin/{*rest}',
]);

describe('the OpenAPI document and the running gateway', () => {
  let gw: TestGateway;

  beforeAll(async () => {
    gw = await startTestGateway();
  });

  afterAll(async () => {
    await gw?.stop();
  });

  it('the document built without starting the gateway is the one it serves at /v1/openapi.json (the SDKs generate their types from it)', async () => {
    const served = await call(gw.url, 'GET', '/v1/openapi.json');
    expect(served.status).toBe(200);
    expect(served.body).toEqual(JSON.parse(JSON.stringify(apiDocument())));
  });

  it('every route registered on the express app is on the stated list of non-API routes; the API operations are all in the document', () => {
    // The API's operations are not express routes: one router built from the same table as the
    // document answers them (src/http/openapi.test.ts sends it every documented operation).
    const registered = registeredRoutes((gw.gateway.app.router as unknown as { stack: Layer[] }).stack);
    const paths = apiDocument()['paths'] as Record<string, Record<string, unknown>>;
    const documented = (route: string) => {
      const [method, path] = route.split(' ') as [string, string];
      return paths[path]?.[method.toLowerCase()] !== undefined;
    };

    expect(registered.filter((route) => !NOT_IN_THE_DOCUMENT.has(route))).toEqual([]);
    // The list names only routes that exist and are left out, so it cannot hide a documented one.
    expect([...NOT_IN_THE_DOCUMENT].filter((route) => !registered.includes(route) || documented(route))).toEqual([]);
  });

  it('answers a documented operation through the API router, and 405 for a known path with another method', async () => {
    const { auth } = await createTestClient(gw.config);
    const created = await call(gw.url, 'POST', '/v1/projects', { auth, json: { name: 'routed' } });
    expect(created.status).toBe(201);
    const projectId = (created.body as { id: string }).id;
    // The path's fixed part in any letter case and a trailing slash, as express matched its routes.
    const read = await call(gw.url, 'GET', `/v1/PROJECTS/${projectId}/`, { auth });
    expect(read.status).toBe(200);
    expect((read.body as { id: string }).id).toBe(projectId);
    const wrongMethod = await call(gw.url, 'PUT', '/v1/projects', { auth, json: {} });
    expect(wrongMethod.status).toBe(405);
    expect(wrongMethod.headers.get('allow')).toBe('POST, GET');
    // A path that is not valid percent-encoding is the client's mistake: a 400, never a 500.
    for (const path of ['/v1/projects/%E0%A4%A', '/v1/projects/%ZZ/users']) {
      const bad = await call(gw.url, 'GET', path, { auth });
      expect([path, bad.status, (JSON.parse(bad.text) as { type: string }).type]).toEqual([path, 400, '/problems/malformed-request']);
    }
    // The edge answers people who clicked a mangled link with its page; an unknown path stays a 404.
    expect((await call(gw.url, 'GET', '/t/o/%ZZ')).status).toBe(400);
    expect((await call(gw.url, 'GET', '/healthz%')).status).toBe(404);
    expect((await call(gw.url, 'GET', '/v1/projects/a%2Fb', { auth })).status).toBe(404);
  });
});
