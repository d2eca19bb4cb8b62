import type { Registry } from 'prom-client';
import { Bus, busOptions } from '@postbus/bus';
import { Topics } from '@postbus/contracts';
import { connectDb, type Connection } from '@postbus/db';
import { createMetricsRegistry, type Teardown } from '@postbus/http';
import type { Logger } from '@postbus/logger';
import type { InboundConfig } from '../config';

/** What the service talks to: its database, the registry /metrics serves, and the bus. */
export interface Infrastructure {
  db: Connection;
  metrics: Registry;
  /** Connected; closed by startConsumers' undo, not here (see there). */
  bus: Bus;
}

export async function connectInfrastructure(config: InboundConfig, logger: Logger, teardown: Teardown): Promise<Infrastructure> {
  const db = await connectDb({ url: config.MONGO_URL, dbName: config.INBOUND_DB_NAME, logger });
  teardown.add(() => db.close());
  const metrics = createMetricsRegistry('inbound');
  const bus = new Bus({ ...busOptions(config), service: 'postbus/inbound', logger, metrics });
  await bus.ensureTopics([{ topic: Topics.Catalog, compacted: true }, { topic: Topics.InboundMail }, { topic: Topics.Feedback }]);
  await bus.publisher.connect();
  return { db, metrics, bus };
}
