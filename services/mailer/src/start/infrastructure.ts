import type { Connection } from 'mongoose';
import { Bus, busOptions } from '@postbus/bus';
import { Topics } from '@postbus/contracts';
import { connectDb } from '@postbus/db';
import { createMetricsRegistry, type Teardown } from '@postbus/http';
import type { Logger } from '@postbus/logger';
import { engineOptionsFrom, TemplateEngine } from '@postbus/templates';
import { SmtpRelay } from '../clients/smtp-relay';
import type { MailerConfig } from '../config';

/** What the mailer talks to: its database, the template workers and the relay mail goes through, its metrics, the bus. */
export interface Infrastructure {
  db: Connection;
  templates: TemplateEngine;
  relay: SmtpRelay;
  metrics: ReturnType<typeof createMetricsRegistry>;
  bus: Bus;
}

/**
 * Connects the database, makes the template engine and the relay, and connects the bus's
 * publisher. The template engine and the relay close after the bus, so they are made here, before
 * the stores: the consumers' last deliveries still render and send while the bus stops them. The
 * bus itself is closed by startConsumers (see there).
 */
export async function connectInfrastructure(config: MailerConfig, logger: Logger, teardown: Teardown): Promise<Infrastructure> {
  const db = await connectDb({ url: config.MONGO_URL, dbName: config.MAILER_DB_NAME, logger });
  teardown.add(() => db.close());
  const templates = new TemplateEngine({
    ...engineOptionsFrom(config),
    onWorkerError: (error) => logger.warn('a template worker thread failed', { error: error.message }),
  });
  teardown.add(() => templates.close());
  const relay = new SmtpRelay(config.SMTP_URL, config.SMTP_POOL_CONNECTIONS);
  teardown.add(() => relay.close());

  const metrics = createMetricsRegistry('mailer');
  const bus = new Bus({ ...busOptions(config), service: 'postbus/mailer', logger, metrics });
  await bus.ensureTopics([
    { topic: Topics.EmailCommands },
    { topic: Topics.EmailBulk },
    { topic: Topics.Catalog, compacted: true },
    { topic: Topics.UserEvents },
    { topic: Topics.UserCommands },
    { topic: Topics.TrackingEvents },
    { topic: Topics.EmailEvents },
    { topic: Topics.ErasureEvents },
    { topic: Topics.Feedback },
    // One partition, so one leader: its consumer's fetches tell whether it hears every announcement.
    { topic: Topics.SuppressionMarkers, partitions: 1 },
  ]);
  await bus.publisher.connect();
  return { db, templates, relay, metrics, bus };
}
