import type { Publisher, SendPathPriority } from '@postbus/bus';
import type { UserErasure } from '../domain/erasure-participant';
import type { UserCommands } from '../domain/user-commands';
import { emailTriggerHandler } from './email-trigger.handler';
import { erasureExecuteHandler } from './erasure-execute.handler';
import { userCreateHandler } from './user-create.handler';
import { userErasureScheduledHandler } from './user-erasure-scheduled.handler';
import { userResubscribeHandler } from './user-resubscribe.handler';
import { userUnsubscribeHandler } from './user-unsubscribe.handler';
import { userUpdateHandler } from './user-update.handler';

/** The users service's handlers: the user commands, and single sends' triggers (which register unknown users). */
export const userHandlers = (commands: UserCommands, singles: SendPathPriority) => [
  userCreateHandler(commands),
  userUpdateHandler(commands),
  userUnsubscribeHandler(commands),
  userResubscribeHandler(commands),
  emailTriggerHandler(commands, 'email.trigger', singles),
];

/** A batch send's triggers, in a group of their own (their registrations wait for their turn while single sends flow). */
export const bulkHandlers = (commands: UserCommands, singles: SendPathPriority) => [
  emailTriggerHandler(commands, 'email.bulk_trigger', singles),
];

/** Its part in erasures: the profile shows a queued erasure; when it runs, the user goes. */
export const erasureHandlers = (erasure: UserErasure, publisher: Publisher) => [
  userErasureScheduledHandler(erasure),
  erasureExecuteHandler(erasure, publisher),
];
