import { Bus, busOptions } from '@postbus/bus';
import { Topics } from '@postbus/contracts';
import { connectDb, type Connection } from '@postbus/db';
import { AddressPolicy, createMetricsRegistry, type Teardown } from '@postbus/http';
import type { Logger } from '@postbus/logger';
import type { DispatcherConfig } from '../config';

/** What the dispatcher talks to: its database, the bus, and the addresses webhooks may be sent to. */
export interface Infrastructure {
  db: Connection;
  metrics: ReturnType<typeof createMetricsRegistry>;
  bus: Bus;
  /** Refuses private, loopback and link-local receivers unless WEBHOOK_ALLOWED_HOSTS admits them. */
  policy: AddressPolicy;
}

/** Connects the database and the bus (its topics made, its publisher connected). */
export async function connectInfrastructure(config: DispatcherConfig, logger: Logger, teardown: Teardown): Promise<Infrastructure> {
  const db = await connectDb({ url: config.MONGO_URL, dbName: config.WEBHOOKS_DB_NAME, logger });
  teardown.add(() => db.close());
  const metrics = createMetricsRegistry('webhook-dispatcher');
  const bus = new Bus({ ...busOptions(config), service: 'postbus/webhook-dispatcher', logger, metrics });
  // Closing the bus stops the consumers too: it goes after the HTTP server and before the database.
  teardown.add(() => bus.close());
  await bus.ensureTopics([
    { topic: Topics.Catalog, compacted: true },
    { topic: Topics.EmailEvents },
    { topic: Topics.UserEvents },
    { topic: Topics.ErasureEvents },
  ]);
  await bus.publisher.connect();
  const policy = new AddressPolicy(config.WEBHOOK_ALLOWED_HOSTS ? config.WEBHOOK_ALLOWED_HOSTS.split(',') : []);
  return { db, metrics, bus, policy };
}
