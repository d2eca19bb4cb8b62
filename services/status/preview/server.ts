import express from 'express';
import { statusPublishing } from '#status/start/publishing';
import { InMemorySubscriberStore } from './in-memory-subscriber-store';
import { FakeStatusSource, PREVIEW_STATES, previewSnapshot } from './scenarios';

/**
 * The public pages over made-up snapshots, one per state under /<state>/ (operational, degraded,
 * major-outage, maintenance, stale), to look at the design without an engine and for the browser
 * test's screenshots: `PORT=8080 node services/status/preview/dist/server.js`. Subscriptions are
 * kept in memory only. A development tool: built by the root `tsc -b`, never part of the image.
 */
const port = Number(process.env.PORT ?? 8080);
const app = express();
app.get('/readyz', (_req, res) => void res.json({ status: 'ready' }));
for (const state of PREVIEW_STATES) {
  const source = new FakeStatusSource(previewSnapshot(state));
  app.use(
    `/${state}`,
    statusPublishing(source, {
      baseUrl: `http://127.0.0.1:${port}/${state}`,
      operatorToken: 'preview-operator-token',
      subscribers: new InMemorySubscriberStore(),
      tokenSecret: 'preview-only-token-secret',
    }),
  );
}
const server = app.listen(port, '127.0.0.1', () => console.log(`status preview on http://127.0.0.1:${port}/operational/`));
process.on('SIGTERM', () => server.close());
