import { SendPathPriority } from '@postbus/bus';
import { ConsumerGroups, Topics } from '@postbus/contracts';
import type { Logger } from '@postbus/logger';
import type { UsersConfig } from '../config';
import { UserErasure } from '../domain/erasure-participant';
import { UserCommands } from '../domain/user-commands';
import { bulkHandlers, erasureHandlers, userHandlers } from '../handlers';
import type { Infrastructure } from './infrastructure';
import type { Stores } from './stores';

/** The domain objects the later steps drive. */
export interface Domain {
  commands: UserCommands;
}

/**
 * Makes what the handlers hand their messages to, and starts the consumer groups. The groups stop
 * when the bus closes (see connectInfrastructure): nothing of their own to undo.
 */
export async function startConsumers(config: UsersConfig, logger: Logger, { bus }: Infrastructure, { users }: Stores): Promise<Domain> {
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
  return { commands };
}
