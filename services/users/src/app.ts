import { startInSteps } from '@postbus/http';
import type { Logger } from '@postbus/logger';
import type { UsersConfig } from './config';
import { startBackgroundWork } from './start/background';
import { startConsumers } from './start/consumers';
import { serveHttp } from './start/http';
import { connectInfrastructure } from './start/infrastructure';
import { openStores } from './start/stores';

export interface UsersService {
  port: number;
  stop(): Promise<void>;
}

/**
 * Starts the users service: its database and bus, its store, its consumer groups, its internal API
 * and the parked-command sweep. stop() undoes them newest first: the sweep, the server, the bus
 * (its consumers, then its publisher), the database.
 */
export function start({ config, logger }: { config: UsersConfig; logger: Logger }): Promise<UsersService> {
  return startInSteps(async (teardown) => {
    const infrastructure = await connectInfrastructure(config, logger, teardown);
    const stores = await openStores(infrastructure);
    const domain = await startConsumers(config, logger, infrastructure, stores);
    const { port } = await serveHttp(config, logger, infrastructure, stores, teardown);
    // After the server, so that the sweep stops first, as it always has.
    startBackgroundWork(logger, domain, teardown);
    logger.info('users service started', { port, host: config.INTERNAL_HOST });
    return { port };
  });
}
