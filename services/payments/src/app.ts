import { Bus, busOptions, knownUserHandlers } from '@postbus/bus';
import { ConsumerGroups, Topics } from '@postbus/contracts';
import { connectDb, KnownUsers, pingDb } from '@postbus/db';
import { closeServer, createMetricsRegistry, startInternalServer } from '@postbus/http';
import type { Logger } from '@postbus/logger';
import type { PaymentsConfig } from './config';
import { erasureHandlers, paymentHandlers } from './handlers';
import { internalApi } from './http/internal-api';
import { PaymentRepository } from './model/payment.repository';
import { paymentModels } from './model/payment.schema';
import { PaymentCommands } from './domain/payment-commands';
import { PaymentErasure } from './domain/erasure-participant';

export interface PaymentsService {
  port: number;
  stop(): Promise<void>;
}

/** Starts the payments service: its database, its consumer groups and its internal API. */
export async function start({ config, logger }: { config: PaymentsConfig; logger: Logger }): Promise<PaymentsService> {
  const db = await connectDb({ url: config.MONGO_URL, dbName: config.PAYMENTS_DB_NAME, logger });
  const payments = new PaymentRepository(paymentModels(db));
  const users = new KnownUsers(db);
  await Promise.all([payments.init(), users.init()]);

  const metrics = createMetricsRegistry('payments');

  const bus = new Bus({ ...busOptions(config), service: 'postbus/payments', logger, metrics });
  await bus.ensureTopics([
    { topic: Topics.PaymentCommands },
    { topic: Topics.PaymentEvents },
    { topic: Topics.UserEvents },
    { topic: Topics.ErasureEvents },
  ]);
  await bus.publisher.connect();
  const commands = new PaymentCommands({ payments, users, publisher: bus.publisher, logger, userWaitMs: config.PAYMENT_USER_WAIT_MS });
  const erasure = new PaymentErasure({ payments, users, logger });
  // Two groups: a payment waiting for its user holds its partition, never the user events it waits
  // for, nor an erasure.
  await Promise.all([
    bus.consume({
      groupId: ConsumerGroups.paymentsUsers,
      handlers: [...knownUserHandlers(users), ...erasureHandlers(erasure, bus.publisher)],
    }),
    bus.consume({ groupId: ConsumerGroups.payments, handlers: paymentHandlers(commands) }),
  ]);

  const { server, port } = await startInternalServer({
    metrics,
    service: 'payments',
    config,
    checks: { database: () => pingDb(db), bus: () => bus.publisher.healthy() },
    handlers: [internalApi(payments, users)],
    logger,
  });
  logger.info('payments service started', { port, host: config.INTERNAL_HOST });

  return {
    port,
    async stop() {
      await closeServer(server);
      await bus.close();
      await db.close();
    },
  };
}
