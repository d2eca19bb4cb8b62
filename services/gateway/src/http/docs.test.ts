import express from 'express';
import { closeServer, listen, notFoundHandler, problemHandler } from '@postbus/http';
import { createLogger } from '@postbus/logger';
import { DOCS_CSP, docsRouter } from './docs';

const logger = createLogger({ service: 'test', level: 'error' });

describe('the API reference at /docs', () => {
  let get: (path: string) => Promise<Response>;
  let close: () => Promise<void>;

  beforeAll(async () => {
    const app = express();
    app.get('/v1/openapi.json', (_req, res) => void res.json({ openapi: '3.1.0' }));
    app.use(docsRouter());
    app.use(notFoundHandler);
    app.use(problemHandler(logger));
    const { server, port } = await listen(app, 0, '127.0.0.1');
    get = (path) => fetch(`http://127.0.0.1:${port}${path}`, { redirect: 'manual' });
    close = () => closeServer(server);
  });
  afterAll(() => close());

  it('is served under a strict Content-Security-Policy: scripts, styles and requests to this origin only, nothing inline or remote', async () => {
    const res = await get('/docs');
    expect(res.status).toBe(200);
    const csp = res.headers.get('content-security-policy') ?? '';
    expect(csp).toBe(DOCS_CSP);
    const directives = new Map(
      csp
        .split(';')
        .map((d) => d.trim().split(/\s+/) as [string, ...string[]])
        .map(([k, ...v]) => [k, v]),
    );
    expect(directives.get('default-src')).toEqual(["'none'"]);
    expect(directives.get('script-src')).toEqual(["'self'"]);
    expect(directives.get('style-src')).toEqual(["'self'"]);
    expect(directives.get('connect-src')).toEqual(["'self'"]);
    expect(directives.get('frame-ancestors')).toEqual(["'none'"]);
    expect(csp).not.toMatch(/unsafe-|https?:|\*/);
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    await res.arrayBuffer();
  });

  it('is a page of our own naming /v1/openapi.json and no other document; its scripts are files of this origin', async () => {
    const html = await (await get('/docs')).text();
    const urls = [...html.matchAll(/(?:href|src)="([^"]*)"/g)].map((m) => m[1]);
    expect(urls).toContain('/v1/openapi.json');
    expect(urls.every((u) => u?.startsWith('/'))).toBe(true);
    expect(urls.filter((u) => /\.(json|ya?ml)$/.test(u ?? ''))).toEqual(['/v1/openapi.json']);
    expect(html).not.toMatch(/petstore|https?:\/\//);
    // No inline script: every <script> loads a file.
    expect(
      [...html.matchAll(/<script([^>]*)>([\s\S]*?)<\/script>/g)].every(([, attrs, body]) => /src="\//.test(attrs ?? '') && !body?.trim()),
    ).toBe(true);
    const init = await get('/docs/init.js');
    expect(init.status).toBe(200);
    expect(init.headers.get('content-type')).toMatch(/javascript/);
    const script = await init.text();
    expect(script).not.toMatch(/petstore|https?:\/\/|swagger\.json/);
    expect(script.match(/"url":"([^"]*)"/)?.[1]).toBe('/v1/openapi.json');
    expect(script).toContain('"validatorUrl":null');
  });

  it('serves Swagger UI’s script and stylesheet from the package, under the same policy', async () => {
    for (const [path, type] of [
      ['/docs/assets/swagger-ui-bundle.js', /javascript/],
      ['/docs/assets/swagger-ui.css', /css/],
    ] as const) {
      const res = await get(path);
      expect([path, res.status]).toEqual([path, 200]);
      expect(res.headers.get('content-type')).toMatch(type);
      expect(res.headers.get('content-security-policy')).toBe(DOCS_CSP);
      expect((await res.arrayBuffer()).byteLength).toBeGreaterThan(1000);
    }
  });

  it('never serves the package’s stock pages and initializer, which load a public demo spec', async () => {
    for (const path of [
      '/docs/swagger-initializer.js',
      '/docs/index.html',
      '/docs/assets/index.html',
      '/docs/assets/swagger-initializer.js',
      '/docs/assets/oauth2-redirect.html',
      '/docs/assets/oauth2-redirect.js',
      '/docs/assets/',
      '/docs/assets/swagger-ui-bundle.js.map',
      '/docs/assets/%73wagger-initializer.js',
      '/docs/assets/../swagger-ui-dist/index.html',
    ]) {
      const res = await get(path);
      expect([path, res.status]).toEqual([path, 404]);
      expect(await res.text()).not.toMatch(/petstore/);
    }
  });
});
