import { randomBytes } from 'node:crypto';
import { end, parse } from 'iso8601-duration';
import cron from 'node-cron';
import { Bus, busOptions, knownUserHandlers } from '@postbus/bus';
import { ConsumerGroups, Topics } from '@postbus/contracts';
import { connectDb, pingDb } from '@postbus/db';
import { closeServer, createMetricsRegistry, startInternalServer } from '@postbus/http';
import type { Logger } from '@postbus/logger';
import type { ErasureConfig } from './config';
import { Erasures } from './domain/erasures';
import { erasureHandlers } from './handlers';
import { internalApi } from './http/internal-api';
import { ErasureRepository } from './model/erasure.repository';

export interface ErasureService {
  port: number;
  stop(): Promise<void>;
}

/** Starts the erasure service: its database, its consumer groups, the due-erasure job and its internal API. */
export async function start({ config, logger }: { config: ErasureConfig; logger: Logger }): Promise<ErasureService> {
  if (!cron.validate(config.ERASURE_SCHEDULE)) throw new Error(`ERASURE_SCHEDULE: "${config.ERASURE_SCHEDULE}" is not a cron expression`);
  const delay = parse(config.ERASURE_DELAY);
  if (!config.ERASURE_AUDIT_KEY)
    logger.warn('ERASURE_AUDIT_KEY is not set: audit email hashes use a random key that ends with this process');
  const participants = config.ERASURE_PARTICIPANTS.split(',');

  const db = await connectDb({ url: config.MONGO_URL, dbName: config.ERASURE_DB_NAME, logger });
  const repository = new ErasureRepository(db, participants);
  await repository.init();

  const metrics = createMetricsRegistry('erasure');

  const bus = new Bus({ ...busOptions(config), service: 'postbus/erasure', logger, metrics });
  await bus.ensureTopics([{ topic: Topics.ErasureCommands }, { topic: Topics.ErasureEvents }, { topic: Topics.UserEvents }]);
  await bus.publisher.connect();
  const erasures = new Erasures({
    repository,
    publisher: bus.publisher,
    logger,
    participants,
    auditKey: config.ERASURE_AUDIT_KEY || randomBytes(32).toString('hex'),
    confirmTimeoutMs: config.ERASURE_CONFIRM_TIMEOUT_MS,
    sweepDelayMs: config.ERASURE_SWEEP_DELAY_MS,
    userWaitMs: config.ERASURE_USER_WAIT_MS,
  });
  // Two groups: a request waiting for its user holds its partition, never the user events it waits for.
  await Promise.all([
    bus.consume({ groupId: ConsumerGroups.erasureUsers, handlers: knownUserHandlers(repository.users) }),
    bus.consume({ groupId: ConsumerGroups.erasure, handlers: erasureHandlers(erasures) }),
  ]);

  // The job, and a pass at start-up: erasures that fell due while no instance ran go at once.
  let running: Promise<void> = Promise.resolve();
  const runDue = () => {
    running = erasures.runDue().then(
      () => undefined,
      (error: unknown) => {
        logger.warn('due erasures not sent; the next run tries again', { error });
      },
    );
    return running;
  };
  const job = cron.schedule(config.ERASURE_SCHEDULE, runDue, { name: 'due-erasures', noOverlap: true });
  await runDue();

  const { server, port } = await startInternalServer({
    metrics,
    service: 'erasure',
    config,
    checks: { database: () => pingDb(db), bus: () => bus.publisher.healthy() },
    handlers: [internalApi({ repository, participants, eraseAtFrom: (acceptedAt) => end(delay, acceptedAt) })],
    logger,
  });
  logger.info('erasure service started', {
    port,
    host: config.INTERNAL_HOST,
    delay: config.ERASURE_DELAY,
    schedule: config.ERASURE_SCHEDULE,
  });

  return {
    port,
    async stop() {
      await job.stop();
      await running;
      await closeServer(server);
      await bus.close();
      await db.close();
    },
  };
}
