import { knownUserHandlers } from '@postbus/bus';
import { ConsumerGroups } from '@postbus/contracts';
import type { Logger } from '@postbus/logger';
import type { ErasureConfig } from '../config';
import { Erasures } from '../domain/erasures';
import { erasureHandlers } from '../handlers';
import type { Infrastructure } from './infrastructure';
import type { Settings } from './settings';
import type { Stores } from './stores';

/** What the consumers drive that the background work runs too. */
export interface Consumers {
  erasures: Erasures;
}

/** The erasure queue, and the consumer groups of the erase requests, the confirmations and the users (they stop with the bus). */
export async function startConsumers(
  config: ErasureConfig,
  logger: Logger,
  { participants, auditKey }: Settings,
  { bus }: Infrastructure,
  { repository }: Stores,
): Promise<Consumers> {
  const erasures = new Erasures({
    repository,
    publisher: bus.publisher,
    logger,
    participants,
    auditKey,
    confirmTimeoutMs: config.ERASURE_CONFIRM_TIMEOUT_MS,
    sweepDelayMs: config.ERASURE_SWEEP_DELAY_MS,
    userWaitMs: config.ERASURE_USER_WAIT_MS,
  });
  // Two groups: a request waiting for its user holds its partition, never the user events it waits for.
  await Promise.all([
    bus.consume({ groupId: ConsumerGroups.erasureUsers, handlers: knownUserHandlers(repository.users) }),
    bus.consume({ groupId: ConsumerGroups.erasure, handlers: erasureHandlers(erasures) }),
  ]);
  return { erasures };
}
