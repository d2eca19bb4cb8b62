import { defaultClientConditions, defineConfig } from 'vite';
import react from '@vitejs/plugin-react';
import tailwindcss from '@tailwindcss/vite';

// The gateway serves the bundle at /admin/ on the API's own origin, so the panel calls relative
// /v1/... paths and the bundle never holds an API URL. `npm run dev -w services/admin` proxies
// /v1 and the email frames to a gateway on 127.0.0.1:8080 (or VITE_GATEWAY) for working on the panel.
export default defineConfig({
  base: '/admin/',
  plugins: [react(), tailwindcss()],
  // `@postbus/contracts/values` (the API's value lists) bundled from its TypeScript source, not the
  // CommonJS build the services run.
  resolve: { conditions: ['source', ...defaultClientConditions] },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    // No inline scripts or data: URLs for the strict Content-Security-Policy of /admin.
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
  },
  server: {
    proxy: Object.fromEntries(['/v1', '/admin/frames'].map((path) => [path, process.env['VITE_GATEWAY'] ?? 'http://127.0.0.1:8080'])),
  },
});
