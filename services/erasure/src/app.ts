import { startInSteps } from '@postbus/http';
import type { Logger } from '@postbus/logger';
import type { ErasureConfig } from './config';
import { startBackgroundWork } from './start/background';
import { startConsumers } from './start/consumers';
import { serveHttp } from './start/http';
import { connectInfrastructure } from './start/infrastructure';
import { readSettings } from './start/settings';
import { openStores } from './start/stores';

export interface ErasureService {
  port: number;
  stop(): Promise<void>;
}

/**
 * Starts the erasure service: its database, its consumer groups, its internal API and the
 * due-erasure job. It stops in the reverse order: the job (and its run under way), the server, the
 * bus, the database.
 */
export function start({ config, logger }: { config: ErasureConfig; logger: Logger }): Promise<ErasureService> {
  return startInSteps(async (teardown) => {
    const settings = readSettings(config, logger);
    const infrastructure = await connectInfrastructure(config, logger, teardown);
    const stores = await openStores(settings, infrastructure);
    const consumers = await startConsumers(config, logger, settings, infrastructure, stores);
    const { port } = await serveHttp(config, logger, settings, infrastructure, stores, teardown);
    await startBackgroundWork(config, logger, consumers, teardown);
    logger.info('erasure service started', {
      port,
      host: config.INTERNAL_HOST,
      delay: config.ERASURE_DELAY,
      schedule: config.ERASURE_SCHEDULE,
    });
    return { port };
  });
}
