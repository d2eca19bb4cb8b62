import { startInSteps } from '@postbus/http';
import type { Logger } from '@postbus/logger';
import type { InboundConfig } from './config';
import { startBackgroundWork } from './start/background';
import { startConsumers } from './start/consumers';
import { serveHttp } from './start/http';
import { connectInfrastructure } from './start/infrastructure';
import { serveSmtp } from './start/smtp';
import { openStores } from './start/stores';

export interface InboundService {
  port: number;
  smtpPort: number;
  stop(): Promise<void>;
}

/**
 * Starts the inbound service: the MX of the return-path domains, which stores what it takes on
 * the bus before it answers 250, and the consumer that reads each stored mail and publishes the
 * feedback it carries (bounces, complaints, unsubscribes) for the mailer. Mail is read on worker
 * threads within INBOUND_PARSE_BUDGET_MS, off the event loop the SMTP listener and the consumer share.
 *
 * The internal server starts after the MX, so /readyz answers 200 only once the MX listens. The
 * stop undoes the steps newest first: the retention sweep, the internal server, the MX, the bus
 * (consumers and publisher), the parse threads, the database.
 */
export function start({ config, logger }: { config: InboundConfig; logger: Logger }): Promise<InboundService> {
  return startInSteps(async (teardown) => {
    const infrastructure = await connectInfrastructure(config, logger, teardown);
    const stores = await openStores(infrastructure);
    const domain = await startConsumers(config, logger, infrastructure, stores, teardown);
    const { smtpPort, starttls } = await serveSmtp(config, logger, infrastructure, stores, domain, teardown);
    const { port } = await serveHttp(config, logger, infrastructure, teardown);
    startBackgroundWork(config, logger, stores, teardown);
    logger.info('inbound service started', { port, smtpPort, smtpHost: config.INBOUND_SMTP_HOST, starttls });
    return { port, smtpPort };
  });
}
