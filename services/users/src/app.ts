import { Bus, busOptions, SendPathPriority } from '@postbus/bus';
import { ConsumerGroups, Topics } from '@postbus/contracts';
import { connectDb, pingDb } from '@postbus/db';
import { closeServer, createMetricsRegistry, every, startInternalServer } from '@postbus/http';
import type { Logger } from '@postbus/logger';
import type { UsersConfig } from './config';
import { bulkHandlers, erasureHandlers, userHandlers } from './handlers';
import { internalApi } from './http/internal-api';
import { UserRepository } from './model/user.repository';
import { userModels } from './model/user.schema';
import { UserCommands } from './domain/user-commands';
import { UserErasure } from './domain/erasure-participant';

export interface UsersService {
  port: number;
  stop(): Promise<void>;
}

const SWEEP_INTERVAL_MS = 1000;

/** Starts the users service: its database, its consumer group, the parked-command sweep and its internal API. */
export async function start({ config, logger }: { config: UsersConfig; logger: Logger }): Promise<UsersService> {
  const db = await connectDb({ url: config.MONGO_URL, dbName: config.USERS_DB_NAME, logger });
  const users = new UserRepository(userModels(db));
  await users.init();

  const metrics = createMetricsRegistry('users');

  const bus = new Bus({ ...busOptions(config), service: 'postbus/users', logger, metrics });
  await bus.ensureTopics([
    { topic: Topics.UserCommands },
    { topic: Topics.UserEvents },
    { topic: Topics.EmailCommands },
    { topic: Topics.EmailBulk },
    { topic: Topics.ErasureEvents },
  ]);
  await bus.publisher.connect();
  const commands = new UserCommands({
    users,
    publisher: bus.publisher,
    logger,
    retryWindowMs: config.USER_UPDATE_RETRY_WINDOW_MS,
    // Creates come as user commands, and as triggers of either lane (implicit registration).
    createsHandledUpTo: async (time) =>
      (await bus.groupHasPassed(ConsumerGroups.users, [Topics.UserCommands, Topics.EmailCommands], time)) &&
      (await bus.groupHasPassed(ConsumerGroups.usersBulk, [Topics.EmailBulk], time)),
  });
  const erasure = new UserErasure({ users, logger });
  // While single sends flow, a batch's registrations go at a bounded rate (in their own group, so
  // that their wait holds up no one else's commands).
  const singles = new SendPathPriority({ whileSendingPerSecond: config.USERS_BULK_RATE_WHILE_SENDING });
  // Every consumer group costs the broker a fetch loop (measured: two more groups cut mail
  // throughput by a fifth): the user commands, single sends' triggers and the quiet erasure topic
  // share one; the batch lane, idle but for batches, has its own.
  await bus.consume({
    groupId: ConsumerGroups.users,
    // Every trigger comes here too, but no mail waits for its registration: fetches wait longer and gather more.
    gatherFetches: 'off-send-path',
    handlers: [...userHandlers(commands, singles), ...erasureHandlers(erasure, bus.publisher)],
  });
  await bus.consume({
    groupId: ConsumerGroups.usersBulk,
    gatherFetches: 'off-send-path',
    handlers: bulkHandlers(commands, singles),
    partitionsConsumedConcurrently: 1,
  });

  // One sweep at a time: the next is scheduled when the last one has finished.
  const sweep = every(SWEEP_INTERVAL_MS, () => commands.sweepParked(), {
    pace: 'rest-between-runs',
    onError: (error) => logger.warn('sweep of parked commands failed', { error }),
  });

  const { server, port } = await startInternalServer({
    metrics,
    service: 'users',
    config,
    checks: { database: () => pingDb(db), bus: () => bus.publisher.healthy() },
    handlers: [internalApi(users)],
    logger,
  });
  logger.info('users service started', { port, host: config.INTERNAL_HOST });

  return {
    port,
    async stop() {
      await sweep.stop();
      await closeServer(server);
      await bus.close();
      await db.close();
    },
  };
}
