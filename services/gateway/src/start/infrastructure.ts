import { randomBytes } from 'node:crypto';
import { Bus, busOptions, type Reader } from '@postbus/bus';
import { Topics } from '@postbus/contracts';
import { connectDb, type Connection } from '@postbus/db';
import { createMetricsRegistry, type Teardown } from '@postbus/http';
import type { Logger } from '@postbus/logger';
import { engineOptionsFrom, TemplateEngine } from '@postbus/templates';
import type { GatewayConfig } from '../config';

/** Usage reports only matter for a minute; an hour leaves room to look at them. */
const USAGE_RETENTION_MS = 60 * 60 * 1000;

/** What the gateway talks to: its database, the template engine's threads, the bus. */
export interface Infrastructure {
  db: Connection;
  registry: ReturnType<typeof createMetricsRegistry>;
  templateEngine: TemplateEngine;
  bus: Bus;
  /** This process among the gateway instances: its own consumer groups, its usage reports. */
  instance: string;
  /** The trigger lanes read by time: a message id the mailer has not read yet is found there. */
  triggers: Reader;
}

/** Connects the database, starts the template engine, and connects the bus (topics made, publisher connected, reader joined). */
export async function connectInfrastructure(config: GatewayConfig, logger: Logger, teardown: Teardown): Promise<Infrastructure> {
  const db = await connectDb({ url: config.MONGO_URL, dbName: config.GATEWAY_DB_NAME, logger });
  teardown.add(() => db.close());
  const registry = createMetricsRegistry('gateway');
  // Made before the bus so that it closes after it: the gateway stops the bus, then the engine, then the database.
  const templateEngine = new TemplateEngine({
    ...engineOptionsFrom(config),
    onWorkerError: (error) => logger.warn('a template worker thread failed', { error: error.message }),
  });
  teardown.add(() => templateEngine.close());
  const bus = new Bus({
    ...busOptions(config),
    service: 'postbus/gateway',
    logger,
    ackTimeoutMs: config.KAFKA_ACK_TIMEOUT_MS,
    metrics: registry,
  });
  // Closing the bus stops its consumer group and its reader too: after the servers, before the engine.
  teardown.add(() => bus.close());
  await bus.ensureTopics([
    { topic: Topics.UserCommands },
    { topic: Topics.EmailCommands },
    { topic: Topics.EmailBulk },
    { topic: Topics.Catalog, compacted: true },
    { topic: Topics.TrackingEvents },
    { topic: Topics.PaymentCommands },
    { topic: Topics.ErasureCommands },
    { topic: Topics.Auth, compacted: true },
    { topic: Topics.GatewayUsage, retentionMs: USAGE_RETENTION_MS },
  ]);
  await bus.publisher.connect();
  const instance = `gw_${randomBytes(6).toString('hex')}`;
  // A message id from a 200 reads at once: until the mailer has read its trigger, from the bus.
  // The reader joins its group before the rest starts (joining beside the instance's group, some gateways never listened).
  const triggers = await bus.startReader(`postbus-gateway-reader-${instance}`, [Topics.EmailCommands, Topics.EmailBulk]);
  return { db, registry, templateEngine, bus, instance, triggers };
}
