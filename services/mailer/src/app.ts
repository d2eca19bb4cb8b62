import { startInSteps } from '@postbus/http';
import type { Logger } from '@postbus/logger';
import type { MailerConfig } from './config';
import { startBackgroundWork } from './start/background';
import { startConsumers } from './start/consumers';
import { serveHttp } from './start/http';
import { connectInfrastructure } from './start/infrastructure';
import { openStores } from './start/stores';

export interface MailerService {
  port: number;
  stop(): Promise<void>;
}

/**
 * Starts the mailer: its database, relay and bus, the stores and projections it keeps, the
 * consumers, its internal API, then the retention and the retry worker.
 *
 * It stops in this order (each step registers its part where it falls in it): the retry worker,
 * the schedule worker, the retention, the internal API's server, the bulk lane, the bus (the
 * consumers, then the publisher), the rollups' last flush, the relay, the template workers, the
 * database.
 */
export function start({ config, logger }: { config: MailerConfig; logger: Logger }): Promise<MailerService> {
  return startInSteps(async (teardown) => {
    const infrastructure = await connectInfrastructure(config, logger, teardown);
    const stores = await openStores(config, logger, infrastructure, teardown);
    const domain = await startConsumers(config, logger, infrastructure, stores, teardown);
    const { port } = await serveHttp(config, logger, infrastructure, stores, domain, teardown);
    startBackgroundWork(config, logger, stores, domain, teardown);
    logger.info('mailer started', { port, host: config.INTERNAL_HOST });
    return { port };
  });
}
