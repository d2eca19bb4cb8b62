import { Bus, busOptions } from '@postbus/bus';
import { Topics } from '@postbus/contracts';
import { connectDb, type Connection } from '@postbus/db';
import { createMetricsRegistry, type Teardown } from '@postbus/http';
import type { Logger } from '@postbus/logger';
import type { UsersConfig } from '../config';

/** What the users service talks to: its own database and the bus, which report to its metrics. */
export interface Infrastructure {
  db: Connection;
  metrics: ReturnType<typeof createMetricsRegistry>;
  bus: Bus;
}

/**
 * Connects the database and the bus (its topics ensured, its publisher connected). They are undone
 * last, the bus (with the consumers it runs) before the database it writes to.
 */
export async function connectInfrastructure(config: UsersConfig, logger: Logger, teardown: Teardown): Promise<Infrastructure> {
  const db = await connectDb({ url: config.MONGO_URL, dbName: config.USERS_DB_NAME, logger });
  teardown.add(() => db.close());

  const metrics = createMetricsRegistry('users');
  const bus = new Bus({ ...busOptions(config), service: 'postbus/users', logger, metrics });
  teardown.add(() => bus.close());
  await bus.ensureTopics([
    { topic: Topics.UserCommands },
    { topic: Topics.UserEvents },
    { topic: Topics.EmailCommands },
    { topic: Topics.EmailBulk },
    { topic: Topics.ErasureEvents },
  ]);
  await bus.publisher.connect();
  return { db, metrics, bus };
}
