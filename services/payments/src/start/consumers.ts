import { knownUserHandlers } from '@postbus/bus';
import { ConsumerGroups } from '@postbus/contracts';
import type { Logger } from '@postbus/logger';
import type { PaymentsConfig } from '../config';
import { PaymentErasure } from '../domain/erasure-participant';
import { PaymentCommands } from '../domain/payment-commands';
import { erasureHandlers, paymentHandlers } from '../handlers';
import type { Infrastructure } from './infrastructure';
import type { Stores } from './stores';

/**
 * Makes what the handlers hand their messages to, and starts the consumer groups. The groups stop
 * when the bus closes (see connectInfrastructure): nothing of their own to undo.
 */
export async function startConsumers(
  config: PaymentsConfig,
  logger: Logger,
  { bus }: Infrastructure,
  { payments, knownUsers }: Stores,
): Promise<void> {
  const commands = new PaymentCommands({
    payments,
    users: knownUsers,
    publisher: bus.publisher,
    logger,
    userWaitMs: config.PAYMENT_USER_WAIT_MS,
  });
  const erasure = new PaymentErasure({ payments, users: knownUsers, logger });
  // Two groups: a payment waiting for its user holds its partition, never the user events it waits
  // for, nor an erasure.
  await Promise.all([
    bus.consume({
      groupId: ConsumerGroups.paymentsUsers,
      handlers: [...knownUserHandlers(knownUsers), ...erasureHandlers(erasure, bus.publisher)],
    }),
    bus.consume({ groupId: ConsumerGroups.payments, handlers: paymentHandlers(commands) }),
  ]);
}
