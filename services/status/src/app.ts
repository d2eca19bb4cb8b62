import { startInSteps } from '@postbus/http';
import type { Logger } from '@postbus/logger';
import type { StatusConfig } from './config';
import type { Clock, StatusEngine } from './domain/status-engine';
import { startBackgroundWork } from './start/background';
import { createEngine } from './start/engine';
import { listenHttp, serveHttp } from './start/http';
import { startMonitor } from './start/monitor';
import { allowedWebhookHosts, startPublishing } from './start/publishing';
import { openStores } from './start/stores';

export interface StatusService {
  port: number;
  url: string;
  engine: StatusEngine;
  stop(): Promise<void>;
}

/**
 * Starts the status service: the engine loaded from its snapshot file, the probes, the
 * persistence (database when reachable) and the HTTP server. Nothing here waits for Kafka or
 * MongoDB: the page answers whatever else is down.
 *
 * It stops newest first: the ticker, the HTTP server, the publishing (notifications under way
 * handed on), the monitor (its probes), then the persistence (the last writes to the database and
 * the snapshot file). The server listens before everything else (the page's links need its port),
 * so `serveHttp` registers its closing in that order.
 */
export function start({ config, logger, clock }: { config: StatusConfig; logger: Logger; clock?: Clock }): Promise<StatusService> {
  return startInSteps(async (teardown) => {
    // A bad entry stops the start here, before anything listens or connects.
    const webhookHosts = allowedWebhookHosts(config);
    const http = await listenHttp(config, teardown);
    const engine = createEngine(config, http.publicUrl, clock);
    const stores = await openStores(config, logger, engine, teardown);
    const { canary } = startMonitor(config, logger, { engine, stores, clock }, teardown);
    const publishing = startPublishing(config, logger, { engine, stores, publicUrl: http.publicUrl, webhookHosts }, teardown);
    serveHttp(config, logger, { http, engine, publishing }, teardown);
    startBackgroundWork(engine, teardown);
    logger.info('status service started', {
      port: http.port,
      host: config.STATUS_HOST,
      canary,
      operatorApi: Boolean(config.STATUS_OPERATOR_TOKEN),
    });
    return { port: http.port, url: http.url, engine };
  });
}
