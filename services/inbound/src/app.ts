import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { Bus, busOptions } from '@postbus/bus';
import { ConsumerGroups, INBOUND_KEPT_BYTES, Topics } from '@postbus/contracts';
import { ReturnPathTokens } from '@postbus/crypto';
import { connectDb, pingDb } from '@postbus/db';
import { closeServer, createMetricsRegistry, startInternalServer } from '@postbus/http';
import type { Logger } from '@postbus/logger';
import type { InboundConfig } from './config';
import { catalogDeletedHandler } from './handlers/catalog-deleted.handler';
import { catalogDomainHandler } from './handlers/catalog-domain.handler';
import { inboundReceivedHandler } from './handlers/inbound-received.handler';
import { ReceivedMail } from './model/received-mail.repository';
import { ReturnPathDomains } from './model/return-path-domain.repository';
import { ReportParser } from './parse/report-parser';
import { createInboundSmtpServer } from './smtp/inbound-smtp';

export interface InboundService {
  port: number;
  smtpPort: number;
  stop(): Promise<void>;
}

function tlsOf(config: InboundConfig): { key: Buffer; cert: Buffer } | undefined {
  if (!config.INBOUND_TLS_KEY_FILE || !config.INBOUND_TLS_CERT_FILE) return undefined;
  return { key: readFileSync(config.INBOUND_TLS_KEY_FILE), cert: readFileSync(config.INBOUND_TLS_CERT_FILE) };
}

/**
 * Starts the inbound service: the MX of the return-path domains, which stores what it takes on
 * the bus before it answers 250, and the consumer that reads each stored mail and publishes the
 * feedback it carries (bounces, complaints, unsubscribes) for the mailer. Mail is read on worker
 * threads within INBOUND_PARSE_BUDGET_MS, off the event loop the SMTP listener and the consumer share.
 */
export async function start({ config, logger }: { config: InboundConfig; logger: Logger }): Promise<InboundService> {
  if (!config.TRACKING_SECRET) logger.warn('TRACKING_SECRET is not set: no return-path token the mailer signed will verify here');
  const tokens = new ReturnPathTokens(config.TRACKING_SECRET || randomBytes(32).toString('hex'));

  const db = await connectDb({ url: config.MONGO_URL, dbName: config.INBOUND_DB_NAME });
  const domains = new ReturnPathDomains(db);
  const received = new ReceivedMail(db);
  await Promise.all([domains.init(), received.init()]);

  const metrics = createMetricsRegistry('inbound');
  const bus = new Bus({ ...busOptions(config), service: 'postbus/inbound', logger, metrics });
  await bus.ensureTopics([{ topic: Topics.Catalog, compacted: true }, { topic: Topics.InboundMail }, { topic: Topics.Feedback }]);
  await bus.publisher.connect();
  const parser = new ReportParser({ threads: config.INBOUND_PARSE_THREADS, budgetMs: config.INBOUND_PARSE_BUDGET_MS, logger });
  await Promise.all([
    bus.consume({ groupId: ConsumerGroups.inboundCatalog, handlers: [catalogDomainHandler(domains), catalogDeletedHandler(domains)] }),
    bus.consume({
      groupId: ConsumerGroups.inbound,
      handlers: [inboundReceivedHandler({ tokens, publisher: bus.publisher, received, logger, readReport: parser.read })],
    }),
  ]);

  const tls = tlsOf(config);
  const smtp = createInboundSmtpServer({
    hostname: config.INBOUND_HOSTNAME,
    acceptsDomain: (domain) => domains.knows(domain),
    record: async (mail) => {
      const kept = mail.raw.subarray(0, INBOUND_KEPT_BYTES);
      // Keyed by the first recipient: reports about one message arrive at its one return path, in order.
      await bus.publisher.publish(Topics.InboundMail, 'inbound.received', mail.rcptTo[0] ?? '', {
        raw: kept.toString('base64'),
        truncated: kept.length < mail.raw.length,
        mailFrom: mail.mailFrom,
        rcptTo: mail.rcptTo,
        remoteAddress: mail.remoteAddress,
        receivedAt: mail.receivedAt,
      });
    },
    maxMessageBytes: config.INBOUND_MAX_MESSAGE_BYTES,
    connectionsPerMinute: config.INBOUND_CONNECTIONS_PER_MINUTE,
    ...(tls ? { tls } : {}),
    logger,
  });
  await new Promise<void>((resolve, reject) => {
    smtp.once('error', reject);
    smtp.listen(config.INBOUND_SMTP_PORT, config.INBOUND_SMTP_HOST, () => resolve());
  });
  smtp.on('error', (error: Error) => logger.warn('inbound SMTP error', { error: error.message }));
  const smtpPort = (smtp.server.address() as AddressInfo).port;

  const { server, port } = await startInternalServer({
    metrics,
    service: 'inbound',
    config,
    checks: { database: () => pingDb(db), bus: () => bus.publisher.healthy() },
    handlers: [],
    logger,
  });
  logger.info('inbound service started', { port, smtpPort, smtpHost: config.INBOUND_SMTP_HOST, starttls: Boolean(tls) });

  return {
    port,
    smtpPort,
    async stop() {
      await new Promise<void>((resolve) => smtp.close(() => resolve()));
      await closeServer(server);
      await bus.close();
      await parser.close();
      await db.close();
    },
  };
}
