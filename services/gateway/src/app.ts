import { startInSteps } from '@postbus/http';
import type { Logger } from '@postbus/logger';
import type { GatewayConfig } from './config';
import { startBackgroundWork } from './start/background';
import { startConsumers } from './start/consumers';
import { serveHttp, type Served } from './start/http';
import { connectInfrastructure } from './start/infrastructure';
import { openStores } from './start/stores';

/** The running gateway: its listeners, and how to stop it. */
export interface Gateway extends Served {
  stop(): Promise<void>;
}

/**
 * Starts the gateway: its database, the bus, the catalog feed, its instance's consumer group and
 * the public HTTP API. It stops in this order: its timers (idempotency purge, the counters'
 * sharing, the catalog's resync), both servers, the bus, the template engine, the database.
 */
export function start({ config, logger }: { config: GatewayConfig; logger: Logger }): Promise<Gateway> {
  return startInSteps(async (teardown) => {
    const infrastructure = await connectInfrastructure(config, logger, teardown);
    const stores = await openStores(infrastructure);
    const consumers = await startConsumers(config, logger, infrastructure, stores);
    const { port, internalPort, app } = await serveHttp(config, logger, infrastructure, stores, consumers, teardown);
    startBackgroundWork(logger, stores, consumers, teardown);
    logger.info('gateway started', { port, internalPort, internalHost: config.INTERNAL_HOST });
    return { port, internalPort, app };
  });
}
