import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import express, { type RequestHandler, type Router } from 'express';
import { NotFoundError } from '@postbus/errors';
import type { Logger } from '@postbus/logger';

/**
 * Where `npm run build` puts the panel (services/admin/dist), found from this file's own place:
 * services/gateway/{src,dist}/http → services/admin/dist, in a clone and in the Docker image alike.
 */
export const DEFAULT_ADMIN_DIST = resolve(__dirname, '../../../admin/dist');

/**
 * What the panel's pages may do. Everything comes from this origin; no inline script or style
 * (the bundle has none), no plugins, no framing of the panel by other sites. A rendered email
 * shown in the panel is framed from this origin (`frame-src 'self'`: /admin/frames/email/…, see
 * email-frame.ts) under a policy of its own, since a srcdoc frame would inherit this one and its
 * inline styles would be refused; so is the template editor's preview, which the panel posts a
 * form into (`form-action 'self'`: /admin/frames/template-preview/…, see template-preview-frame.ts).
 */
export const ADMIN_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "font-src 'self'",
  "connect-src 'self'",
  "frame-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

// Answered here rather than thrown: the problem handler would log every such request as a failure.
const PANEL_NOT_BUILT = JSON.stringify({
  type: '/problems/admin-panel-not-built',
  title: 'The admin panel is not built',
  status: 503,
  detail: 'Run `npm run build` (it builds services/admin) and restart the gateway.',
});

const securityHeaders: RequestHandler = (_req, res, next) => {
  res.set({
    'Content-Security-Policy': ADMIN_CSP,
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'same-origin',
  });
  next();
};

/**
 * The admin panel at /admin/: hashed assets cached for a year (a new build has new names), every
 * other path under /admin/ answered with index.html (not cached, so a deploy shows at once), for
 * the client-side router's deep links.
 */
export function adminPanelRouter(logger: Logger, distDir = DEFAULT_ADMIN_DIST): Router {
  const router = express.Router();
  const index = join(distDir, 'index.html');
  const built = existsSync(index);
  if (!built) logger.warn('the admin panel is not built: /admin answers 503 until `npm run build` built services/admin', { distDir });
  // Relative asset and router paths need the trailing slash. (Express matches /admin/ here too.)
  router.get('/admin', (req, res, next) => {
    const [path = '', ...query] = req.originalUrl.split('?');
    if (path !== '/admin') return next();
    res.redirect(301, `/admin/${query.length ? `?${query.join('?')}` : ''}`);
  });
  router.use('/admin', securityHeaders);
  if (!built) {
    router.use('/admin', (_req, res) => {
      res.status(503).type('application/problem+json').send(PANEL_NOT_BUILT);
    });
    return router;
  }
  router.use(
    '/admin/assets',
    express.static(join(distDir, 'assets'), { index: false, immutable: true, maxAge: '365d' }),
    // A missing asset is a 404, never index.html: a stale page asking for an old bundle must fail visibly.
    () => {
      throw new NotFoundError('No such asset of the admin panel.');
    },
  );
  const sendIndex: RequestHandler = (_req, res) => {
    res.sendFile(index, { cacheControl: false, headers: { 'Cache-Control': 'no-cache' } });
  };
  router.get('/admin/', sendIndex);
  router.use(
    '/admin',
    express.static(distDir, { index: false, cacheControl: false, setHeaders: (res) => res.set('Cache-Control', 'no-cache') }),
  );
  router.get('/admin/{*rest}', sendIndex);
  return router;
}
