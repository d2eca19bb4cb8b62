import type { AddressInfo } from 'node:net';
import type { SMTPServer } from 'smtp-server';
import type { Teardown } from '@postbus/http';
import type { Logger } from '@postbus/logger';
import type { SmtpSinkConfig } from '../config';
import { createSmtpServer } from '../smtp/smtp-server';
import type { Stores } from './stores';

function listenSmtp(server: SMTPServer, port: number, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve((server.server.address() as AddressInfo).port);
    });
  });
}

const closeSmtp = (server: SMTPServer) => new Promise<void>((resolve) => server.close(() => resolve()));

/** The SMTP server that keeps every message it takes (unless a fault is injected). */
export async function serveSmtp(
  config: SmtpSinkConfig,
  logger: Logger,
  { store, faults }: Stores,
  teardown: Teardown,
): Promise<{ smtpPort: number }> {
  const smtp = createSmtpServer({ store, faults, maxMessageBytes: config.SINK_MAX_MESSAGE_BYTES });
  // Connection-level failures (a client resetting the socket) are the client's business.
  smtp.on('error', (error: Error) => logger.debug('smtp connection error', { error: error.message }));
  const smtpPort = await listenSmtp(smtp, config.SMTP_PORT, config.SMTP_HOST);
  teardown.add(() => closeSmtp(smtp));
  return { smtpPort };
}
