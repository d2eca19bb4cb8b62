import { pingDb } from '@postbus/db';
import { closeServer, startInternalServer, type Teardown } from '@postbus/http';
import type { Logger } from '@postbus/logger';
import type { UsersConfig } from '../config';
import { internalApi } from '../http/internal-api';
import type { Infrastructure } from './infrastructure';
import type { Stores } from './stores';

/** Serves the internal read API the gateway proxies to, with the health and metrics endpoints. */
export async function serveHttp(
  config: UsersConfig,
  logger: Logger,
  { db, bus, metrics }: Infrastructure,
  { users }: Stores,
  teardown: Teardown,
): Promise<{ port: number }> {
  const { server, port } = await startInternalServer({
    metrics,
    service: 'users',
    config,
    checks: { database: () => pingDb(db), bus: () => bus.publisher.healthy() },
    handlers: [internalApi(users)],
    logger,
  });
  teardown.add(() => closeServer(server));
  return { port };
}
