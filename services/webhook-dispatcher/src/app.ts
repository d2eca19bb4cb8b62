import { startInSteps } from '@postbus/http';
import type { Logger } from '@postbus/logger';
import type { DispatcherConfig } from './config';
import { startBackgroundWork } from './start/background';
import { startConsumers } from './start/consumers';
import { serveHttp } from './start/http';
import { connectInfrastructure } from './start/infrastructure';
import { openStores } from './start/stores';

export interface Dispatcher {
  port: number;
  stop(): Promise<void>;
}

/**
 * Starts the webhook dispatcher: its database, the project projection, the event consumer, the
 * delivery worker and its internal API. It stops in the reverse order: the worker (its attempts
 * in flight), the retention loop, the server, the bus, the database.
 */
export function start({ config, logger }: { config: DispatcherConfig; logger: Logger }): Promise<Dispatcher> {
  return startInSteps(async (teardown) => {
    const infrastructure = await connectInfrastructure(config, logger, teardown);
    const stores = await openStores(config, logger, infrastructure);
    const consumers = await startConsumers(config, logger, infrastructure, stores);
    const { port } = await serveHttp(config, logger, infrastructure, stores, teardown);
    startBackgroundWork(config, logger, stores, consumers, teardown);
    logger.info('webhook dispatcher started', { port, host: config.INTERNAL_HOST });
    return { port };
  });
}
