import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { Counter } from 'prom-client';
import { INBOUND_KEPT_BYTES, Topics } from '@postbus/contracts';
import type { Teardown } from '@postbus/http';
import type { Logger } from '@postbus/logger';
import type { InboundConfig } from '../config';
import { carriesToken } from '../domain/token-presence';
import { createInboundSmtpServer } from '../smtp/inbound-smtp';
import type { Domain } from './consumers';
import type { Infrastructure } from './infrastructure';
import type { Stores } from './stores';

function tlsOf(config: InboundConfig): { key: Buffer; cert: Buffer } | undefined {
  if (!config.INBOUND_TLS_KEY_FILE || !config.INBOUND_TLS_CERT_FILE) return undefined;
  return { key: readFileSync(config.INBOUND_TLS_KEY_FILE), cert: readFileSync(config.INBOUND_TLS_CERT_FILE) };
}

/** The MX of the return-path domains, which stores what it takes on the bus before it answers 250. */
export async function serveSmtp(
  config: InboundConfig,
  logger: Logger,
  { bus, metrics }: Infrastructure,
  { domains }: Stores,
  { tokens }: Domain,
  teardown: Teardown,
): Promise<{ smtpPort: number; starttls: boolean }> {
  const dropped = new Counter({
    name: 'postbus_inbound_mail_dropped_total',
    help: 'mail the MX took and dropped unstored, by why (no_token: it names none of our messages)',
    labelNames: ['reason'] as const,
    registers: [metrics],
  });
  const tls = tlsOf(config);
  const smtp = createInboundSmtpServer({
    hostname: config.INBOUND_HOSTNAME,
    acceptsDomain: (domain) => domains.knows(domain),
    record: async (mail) => {
      // A mail that names none of our messages changes nothing: counted and dropped, not stored.
      if (!carriesToken({ head: mail.raw, rcptTo: mail.rcptTo }, tokens)) {
        dropped.inc({ reason: 'no_token' });
        logger.info('inbound mail dropped: it carries no return-path token of ours');
        return;
      }
      // Keyed by the first recipient: reports about one message arrive at its one return path, in order.
      await bus.publisher.publish(Topics.InboundMail, 'inbound.received', mail.rcptTo[0] ?? '', {
        raw: mail.raw.toString('base64'),
        truncated: mail.truncated,
        mailFrom: mail.mailFrom,
        rcptTo: mail.rcptTo,
        remoteAddress: mail.remoteAddress,
        receivedAt: mail.receivedAt,
      });
    },
    maxMessageBytes: config.INBOUND_MAX_MESSAGE_BYTES,
    keptBytes: INBOUND_KEPT_BYTES,
    limits: {
      connections: config.INBOUND_MAX_CONNECTIONS,
      connectionsPerNetwork: config.INBOUND_CONNECTIONS_PER_NETWORK,
      connectionsPerMinute: config.INBOUND_CONNECTIONS_PER_MINUTE,
      commandsPerConnection: config.INBOUND_COMMANDS_PER_CONNECTION,
      transactionsPerConnection: config.INBOUND_TRANSACTIONS_PER_CONNECTION,
      recipientsPerTransaction: config.INBOUND_RECIPIENTS_PER_TRANSACTION,
      connectionLifetimeMs: config.INBOUND_CONNECTION_LIFETIME_MS,
    },
    ...(tls ? { tls } : {}),
    logger,
  });
  await new Promise<void>((resolve, reject) => {
    smtp.once('error', reject);
    smtp.listen(config.INBOUND_SMTP_PORT, config.INBOUND_SMTP_HOST, () => resolve());
  });
  teardown.add(() => new Promise<void>((resolve) => smtp.close(() => resolve())));
  smtp.on('error', (error: Error) => logger.warn('inbound SMTP error', { error: error.message }));
  return { smtpPort: (smtp.server.address() as AddressInfo).port, starttls: Boolean(tls) };
}
