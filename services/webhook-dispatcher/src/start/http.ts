import express from 'express';
import { pingDb } from '@postbus/db';
import { closeServer, startInternalServer, type Teardown } from '@postbus/http';
import type { Logger } from '@postbus/logger';
import type { DispatcherConfig } from '../config';
import { internalApi } from '../http/internal-api';
import type { Infrastructure } from './infrastructure';
import type { Stores } from './stores';

/** The internal API the gateway proxies webhooks and deliveries to, with health and metrics. */
export async function serveHttp(
  config: DispatcherConfig,
  logger: Logger,
  { db, bus, metrics, policy }: Infrastructure,
  { endpoints, deliveries }: Stores,
  teardown: Teardown,
): Promise<{ port: number }> {
  const { server, port } = await startInternalServer({
    metrics,
    service: 'webhook-dispatcher',
    config,
    checks: { database: () => pingDb(db), bus: () => bus.publisher.healthy() },
    handlers: [
      express.json({ limit: '64kb' }),
      internalApi({ endpoints, deliveries, policy, secretOverlapMs: config.WEBHOOK_SECRET_OVERLAP_MS }),
    ],
    logger,
  });
  teardown.add(() => closeServer(server));
  return { port };
}
