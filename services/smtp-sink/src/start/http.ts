import express from 'express';
import { closeServer, listen, notFoundHandler, problemHandler, requestId, type Teardown } from '@postbus/http';
import type { Logger } from '@postbus/logger';
import type { SmtpSinkConfig } from '../config';
import { MailpitViews } from '../domain/mailpit-views';
import { sinkApi } from '../http/sink-api';
import type { Stores } from './stores';

/** Mailpit's API over the kept messages, the fault injection, and the probes. */
export async function serveHttp(
  config: SmtpSinkConfig,
  logger: Logger,
  { store, faults }: Stores,
  teardown: Teardown,
): Promise<{ httpPort: number }> {
  let ready = true;
  const app = express();
  app.disable('x-powered-by');
  app.disable('etag');
  app.use(requestId);
  app.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  app.get('/readyz', (_req, res) => {
    res.status(ready ? 200 : 503).json({ status: ready ? 'ok' : 'stopping' });
  });
  app.use(sinkApi({ store, views: new MailpitViews(store), faults, logger }));
  app.use(notFoundHandler);
  app.use(problemHandler(logger));
  const { server, port: httpPort } = await listen(app, config.PORT, config.HTTP_HOST);
  teardown.add(async () => {
    ready = false; // a request on a connection still open hears that the sink is stopping
    await closeServer(server);
  });
  return { httpPort };
}
