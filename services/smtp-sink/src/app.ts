import { startInSteps } from '@postbus/http';
import type { Logger } from '@postbus/logger';
import type { SmtpSinkConfig } from './config';
import { serveHttp } from './start/http';
import { serveSmtp } from './start/smtp';
import { openStores } from './start/stores';

export interface SmtpSink {
  smtpPort: number;
  httpPort: number;
  stop(): Promise<void>;
}

/**
 * Starts the SMTP server, then the HTTP API: /readyz answers 200 only while both listen. The stop
 * undoes them newest first: the HTTP API (/readyz answering 503 from then on), then the SMTP server.
 */
export function start({ config, logger }: { config: SmtpSinkConfig; logger: Logger }): Promise<SmtpSink> {
  return startInSteps(async (teardown) => {
    const stores = openStores(config);
    const { smtpPort } = await serveSmtp(config, logger, stores, teardown);
    const { httpPort } = await serveHttp(config, logger, stores, teardown);
    logger.info('smtp-sink started', { smtpPort, httpPort, maxMessages: config.SINK_MAX_MESSAGES });
    return { smtpPort, httpPort };
  });
}
