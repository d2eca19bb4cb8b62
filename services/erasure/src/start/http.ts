import { pingDb } from '@postbus/db';
import { closeServer, startInternalServer, type Teardown } from '@postbus/http';
import type { Logger } from '@postbus/logger';
import type { ErasureConfig } from '../config';
import { internalApi } from '../http/internal-api';
import type { Infrastructure } from './infrastructure';
import type { Settings } from './settings';
import type { Stores } from './stores';

/** The internal read API the gateway calls, with health and metrics. */
export async function serveHttp(
  config: ErasureConfig,
  logger: Logger,
  { participants, eraseAtFrom }: Settings,
  { db, bus, metrics }: Infrastructure,
  { repository }: Stores,
  teardown: Teardown,
): Promise<{ port: number }> {
  const { server, port } = await startInternalServer({
    metrics,
    service: 'erasure',
    config,
    checks: { database: () => pingDb(db), bus: () => bus.publisher.healthy() },
    handlers: [internalApi({ repository, participants, eraseAtFrom })],
    logger,
  });
  teardown.add(() => closeServer(server));
  return { port };
}
