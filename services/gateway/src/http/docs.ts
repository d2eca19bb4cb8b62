import express, { type RequestHandler, type Router } from 'express';
import { getAbsoluteFSPath } from 'swagger-ui-dist';

/** The one document /docs shows: this gateway's own. */
export const DOCS_SPEC_URL = '/v1/openapi.json';

/**
 * What /docs may do: its script, styles and images from this origin only (no inline script or
 * style, no remote origin), the spec and "Try it out" fetched from this origin, no framing by
 * other sites. Swagger UI's stylesheet draws its icons as data: URIs.
 */
export const DOCS_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Postbus API</title>
<link rel="icon" type="image/png" href="/docs/assets/favicon-32x32.png">
<link rel="stylesheet" href="/docs/assets/swagger-ui.css">
</head>
<body>
<div id="ui"></div>
<noscript><p>The API reference needs JavaScript; the OpenAPI document itself is at <a href="${DOCS_SPEC_URL}">${DOCS_SPEC_URL}</a>.</p></noscript>
<script src="/docs/assets/swagger-ui-bundle.js"></script>
<script src="/docs/init.js"></script>
</body>
</html>`;

// This gateway's document only, never one named in the query string (queryConfigEnabled), and no
// badge from the public validator (validatorUrl): the page talks to no one else.
const INIT = `window.ui = SwaggerUIBundle(${JSON.stringify({
  url: DOCS_SPEC_URL,
  dom_id: '#ui',
  deepLinking: true,
  queryConfigEnabled: false,
  validatorUrl: null,
})});
`;

/**
 * The only files of swagger-ui-dist served: the package also holds a stock index.html and
 * swagger-initializer.js, which load a public demo spec, and an OAuth redirect page with inline script.
 */
const ASSETS = new Set(['swagger-ui-bundle.js', 'swagger-ui.css', 'favicon-16x16.png', 'favicon-32x32.png']);

const securityHeaders: RequestHandler = (_req, res, next) => {
  res.set({ 'Content-Security-Policy': DOCS_CSP, 'X-Content-Type-Options': 'nosniff', 'Referrer-Policy': 'same-origin' });
  next();
};

/** /docs renders /v1/openapi.json with Swagger UI served from the package (no CDN), under its own policy. */
export function docsRouter(): Router {
  const router = express.Router();
  router.use('/docs', securityHeaders);
  router.get('/docs', (_req, res) => {
    res.set('Cache-Control', 'no-cache').type('html').send(PAGE);
  });
  router.get('/docs/init.js', (_req, res) => {
    res.set('Cache-Control', 'no-cache').type('application/javascript').send(INIT);
  });
  const assets = express.static(getAbsoluteFSPath(), { index: false, maxAge: '1h' });
  router.use('/docs/assets', (req, res, next) => (ASSETS.has(req.path.slice(1)) ? assets(req, res, next) : next()));
  return router;
}
