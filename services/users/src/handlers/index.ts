import type { Publisher } from '@postbus/bus';
import type { UserErasure } from '../domain/erasure-participant';
import type { UserCommands } from '../domain/user-commands';
import { emailTriggerHandler } from './email-trigger.handler';
import { erasureExecuteHandler } from './erasure-execute.handler';
import { userCreateHandler } from './user-create.handler';
import { userErasureScheduledHandler } from './user-erasure-scheduled.handler';
import { userResubscribeHandler } from './user-resubscribe.handler';
import { userUnsubscribeHandler } from './user-unsubscribe.handler';
import { userUpdateHandler } from './user-update.handler';

/** The users service's handlers: the user commands, and triggers (which register unknown users). */
export const userHandlers = (commands: UserCommands) => [
  userCreateHandler(commands),
  userUpdateHandler(commands),
  userUnsubscribeHandler(commands),
  userResubscribeHandler(commands),
  emailTriggerHandler(commands, 'email.trigger'),
  emailTriggerHandler(commands, 'email.bulk_trigger'),
];

/** Its part in erasures: the profile shows a queued erasure; when it runs, the user goes. */
export const erasureHandlers = (erasure: UserErasure, publisher: Publisher) => [
  userErasureScheduledHandler(erasure),
  erasureExecuteHandler(erasure, publisher),
];
