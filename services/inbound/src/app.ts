import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { Bus, busOptions } from '@postbus/bus';
import { ConsumerGroups, INBOUND_KEPT_BYTES, Topics } from '@postbus/contracts';
import { ReturnPathTokens } from '@postbus/crypto';
import { connectDb, pingDb } from '@postbus/db';
import { Counter } from 'prom-client';
import { closeServer, createMetricsRegistry, startInternalServer } from '@postbus/http';
import { every } from '@postbus/http/every';
import type { Logger } from '@postbus/logger';
import type { InboundConfig } from './config';
import { catalogHandlers, receivedMailHandlers } from './handlers';
import { ReportIntake } from './domain/report-intake';
import { ReceivedMail } from './model/received-mail.repository';
import { ReturnPathDomains } from './model/return-path-domain.repository';
import { carriesToken } from './domain/token-presence';
import { ReportParser } from './parse/report-parser';
import { createInboundSmtpServer } from './smtp/inbound-smtp';

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

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

  const db = await connectDb({ url: config.MONGO_URL, dbName: config.INBOUND_DB_NAME, logger });
  const domains = new ReturnPathDomains(db);
  const received = new ReceivedMail(db);
  await Promise.all([domains.init(), received.init()]);

  const metrics = createMetricsRegistry('inbound');
  const dropped = new Counter({
    name: 'postbus_inbound_mail_dropped_total',
    help: 'mail the MX took and dropped unstored, by why (no_token: it names none of our messages)',
    labelNames: ['reason'] as const,
    registers: [metrics],
  });
  const retention = every(HOUR_MS, () => received.purgeBefore(new Date(Date.now() - config.INBOUND_RECORD_RETENTION_DAYS * DAY_MS)), {
    pace: 'rest-between-runs',
    firstRunAfterMs: 60_000,
    onError: (error) => logger.warn('purging old received-mail records failed', { error }),
  });
  const bus = new Bus({ ...busOptions(config), service: 'postbus/inbound', logger, metrics });
  await bus.ensureTopics([{ topic: Topics.Catalog, compacted: true }, { topic: Topics.InboundMail }, { topic: Topics.Feedback }]);
  await bus.publisher.connect();
  const parser = new ReportParser({ threads: config.INBOUND_PARSE_THREADS, budgetMs: config.INBOUND_PARSE_BUDGET_MS, logger });
  await Promise.all([
    bus.consume({ groupId: ConsumerGroups.inboundCatalog, handlers: catalogHandlers(domains) }),
    bus.consume({
      groupId: ConsumerGroups.inbound,
      handlers: receivedMailHandlers(new ReportIntake({ tokens, publisher: bus.publisher, received, logger, readReport: parser.read })),
    }),
  ]);

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
      await retention.stop();
      await new Promise<void>((resolve) => smtp.close(() => resolve()));
      await closeServer(server);
      await bus.close();
      await parser.close();
      await db.close();
    },
  };
}
