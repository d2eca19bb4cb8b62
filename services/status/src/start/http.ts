import type { Server } from 'node:http';
import express, { type Express } from 'express';
import { closeServer, healthRouter, listen, notFoundHandler, problemHandler, requestId, type Teardown } from '@postbus/http';
import type { Logger } from '@postbus/logger';
import type { StatusConfig } from '../config';
import type { StatusEngine } from '../domain/status-engine';
import { operatorApi } from '../http/operator-api';
import type { Publishing } from './publishing';

/** The service's HTTP server, listening with its health routes only until `serveHttp` mounts the rest. */
export interface HttpServer {
  app: Express;
  port: number;
  /** Where this instance listens, e.g. `http://127.0.0.1:8090`. */
  url: string;
  /** The page's public address (STATUS_PUBLIC_URL, or `url`), without a trailing slash. */
  publicUrl: string;
  /** Reports ready from now on (every route is mounted). */
  markServing(): void;
  /** Closes the server, once however often it is called. */
  close(): Promise<void>;
}

/**
 * Listening first: with PORT=0 (tests) the page's absolute links need the real port. Ready only
 * once every route is mounted; from then on whatever else is down, since it serves from memory.
 */
export async function listenHttp(config: StatusConfig, teardown: Teardown): Promise<HttpServer> {
  let serving = false;
  const app = express();
  app.disable('x-powered-by');
  // The subscription limits count per client address: behind a proxy, the one X-Forwarded-For names.
  if (config.STATUS_TRUST_PROXY)
    app.set('trust proxy', /^\d+$/.test(config.STATUS_TRUST_PROXY) ? Number(config.STATUS_TRUST_PROXY) : config.STATUS_TRUST_PROXY);
  app.use(requestId);
  app.use(healthRouter('status', { engine: () => serving }));
  const { server, port }: { server: Server; port: number } = await listen(app, config.PORT, config.STATUS_HOST);
  let closing: Promise<void> | undefined;
  const close = () => (closing ??= closeServer(server));
  // For a start that fails before `serveHttp`; a started service closes the server earlier, in
  // its place in the stop order (`serveHttp` registers it again), and this then finds it closed.
  teardown.add(close);
  const url = `http://${config.STATUS_HOST.includes(':') ? `[${config.STATUS_HOST}]` : config.STATUS_HOST}:${port}`;
  return {
    app,
    port,
    url,
    publicUrl: (config.STATUS_PUBLIC_URL || url).replace(/\/+$/, ''),
    markServing: () => void (serving = true),
    close,
  };
}

/**
 * Mounts the operator API and the public face (page, Statuspage v2 JSON, feeds, badges,
 * subscriptions, all from `engine.snapshot()`), and reports ready.
 */
export function serveHttp(
  config: StatusConfig,
  logger: Logger,
  { http, engine, publishing }: { http: HttpServer; engine: StatusEngine; publishing: Publishing },
  teardown: Teardown,
): void {
  http.app.use(operatorApi(engine, config.STATUS_OPERATOR_TOKEN));
  http.app.use(publishing);
  http.app.use(notFoundHandler);
  http.app.use(problemHandler(logger, '64kb'));
  http.markServing();
  // Closed before the publishing stops and the database closes: no request finds them gone.
  teardown.add(() => http.close());
}
