import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import express from 'express';
import { listen, closeServer, notFoundHandler, problemHandler } from '@postbus/http';
import { createLogger } from '@postbus/logger';
import { adminPanelRouter } from './admin-panel';

const logger = createLogger({ service: 'test', level: 'error' });

async function serve(distDir: string) {
  const app = express();
  app.use(adminPanelRouter(logger, distDir));
  app.use(notFoundHandler);
  app.use(problemHandler(logger));
  const { server, port } = await listen(app, 0, '127.0.0.1');
  const get = (path: string) => fetch(`http://127.0.0.1:${port}${path}`, { redirect: 'manual' });
  return { get, close: () => closeServer(server) };
}

describe('the admin panel at /admin/', () => {
  const dist = mkdtempSync(join(tmpdir(), 'admin-dist-'));
  mkdirSync(join(dist, 'assets'));
  writeFileSync(join(dist, 'index.html'), '<!doctype html><title>Postbus admin</title>');
  writeFileSync(join(dist, 'assets', 'index-AbC123.js'), 'console.log(1)');
  let panel: Awaited<ReturnType<typeof serve>>;
  beforeAll(async () => {
    panel = await serve(dist);
  });
  afterAll(() => panel.close());

  it('answers every deep link with index.html, never cached, under a strict Content-Security-Policy', async () => {
    for (const path of ['/admin/', '/admin/projects/65a000000000000000000001/users/ada%40example.com', '/admin/webhooks/we_1']) {
      const res = await get(path);
      expect(res.status).toBe(200);
      expect(await res.text()).toContain('<title>Postbus admin</title>');
      expect(res.headers.get('cache-control')).toBe('no-cache');
      const csp = res.headers.get('content-security-policy') ?? '';
      expect(csp).toContain("default-src 'self'");
      expect(csp).toContain("script-src 'self'");
      expect(csp).not.toContain('unsafe-inline');
      expect(csp).toContain("frame-ancestors 'none'");
    }
    function get(path: string) {
      return panel.get(path);
    }
  });

  it('serves hashed assets as immutable for a year, and a missing asset is a 404 rather than index.html', async () => {
    const asset = await panel.get('/admin/assets/index-AbC123.js');
    expect(asset.status).toBe(200);
    expect(asset.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(asset.headers.get('content-type')).toMatch(/javascript/);
    const missing = await panel.get('/admin/assets/index-Old999.js');
    expect(missing.status).toBe(404);
    expect(missing.headers.get('content-type')).toMatch(/problem\+json/);
  });

  it('redirects /admin to /admin/, keeping the query', async () => {
    const res = await panel.get('/admin?x=1');
    expect(res.status).toBe(301);
    expect(res.headers.get('location')).toBe('/admin/?x=1');
  });

  it('when the panel was not built, /admin/ says so with a 503 problem instead of a blank page', async () => {
    const unbuilt = await serve(mkdtempSync(join(tmpdir(), 'admin-empty-')));
    try {
      const res = await unbuilt.get('/admin/webhooks');
      expect(res.status).toBe(503);
      expect(((await res.json()) as { detail: string }).detail).toMatch(/npm run build/);
    } finally {
      await unbuilt.close();
    }
  });
});
