import { pingDb } from '@postbus/db';
import { closeServer, startInternalServer, type Teardown } from '@postbus/http';
import type { Logger } from '@postbus/logger';
import type { InboundConfig } from '../config';
import type { Infrastructure } from './infrastructure';

/** The internal server: health, readiness (the database and the bus) and metrics; no routes of its own. */
export async function serveHttp(
  config: InboundConfig,
  logger: Logger,
  { db, metrics, bus }: Infrastructure,
  teardown: Teardown,
): Promise<{ port: number }> {
  const { server, port } = await startInternalServer({
    metrics,
    service: 'inbound',
    config,
    checks: { database: () => pingDb(db), bus: () => bus.publisher.healthy() },
    handlers: [],
    logger,
  });
  teardown.add(() => closeServer(server));
  return { port };
}
