import { Bus, busOptions } from '@postbus/bus';
import { Topics } from '@postbus/contracts';
import { connectDb, type Connection } from '@postbus/db';
import { createMetricsRegistry, type Teardown } from '@postbus/http';
import type { Logger } from '@postbus/logger';
import type { ErasureConfig } from '../config';

/** What the erasure service talks to: its database and the bus. */
export interface Infrastructure {
  db: Connection;
  metrics: ReturnType<typeof createMetricsRegistry>;
  bus: Bus;
}

/** Connects the database and the bus (its topics made, its publisher connected). */
export async function connectInfrastructure(config: ErasureConfig, logger: Logger, teardown: Teardown): Promise<Infrastructure> {
  const db = await connectDb({ url: config.MONGO_URL, dbName: config.ERASURE_DB_NAME, logger });
  teardown.add(() => db.close());
  const metrics = createMetricsRegistry('erasure');
  const bus = new Bus({ ...busOptions(config), service: 'postbus/erasure', logger, metrics });
  // Closing the bus stops the consumers too: it goes after the HTTP server and before the database.
  teardown.add(() => bus.close());
  await bus.ensureTopics([{ topic: Topics.ErasureCommands }, { topic: Topics.ErasureEvents }, { topic: Topics.UserEvents }]);
  await bus.publisher.connect();
  return { db, metrics, bus };
}
