import { startInSteps } from '@postbus/http';
import type { Logger } from '@postbus/logger';
import type { PaymentsConfig } from './config';
import { startConsumers } from './start/consumers';
import { serveHttp } from './start/http';
import { connectInfrastructure } from './start/infrastructure';
import { openStores } from './start/stores';

export interface PaymentsService {
  port: number;
  stop(): Promise<void>;
}

/**
 * Starts the payments service: its database and bus, its stores, its consumer groups and its
 * internal API. stop() undoes them newest first: the server, the bus (its consumers, then its
 * publisher), the database.
 */
export function start({ config, logger }: { config: PaymentsConfig; logger: Logger }): Promise<PaymentsService> {
  return startInSteps(async (teardown) => {
    const infrastructure = await connectInfrastructure(config, logger, teardown);
    const stores = await openStores(infrastructure);
    await startConsumers(config, logger, infrastructure, stores);
    const { port } = await serveHttp(config, logger, infrastructure, stores, teardown);
    logger.info('payments service started', { port, host: config.INTERNAL_HOST });
    return { port };
  });
}
