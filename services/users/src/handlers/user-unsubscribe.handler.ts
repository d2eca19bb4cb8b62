import { defineHandler } from '@postbus/bus';
import { Topics } from '@postbus/contracts';
import type { UserCommands } from '../domain/user-commands';

/** `user.unsubscribe`: marks the user unsubscribed, or parks the command until the user's create arrives. */
export const userUnsubscribeHandler = (commands: UserCommands) =>
  defineHandler({ topic: Topics.UserCommands, type: 'user.unsubscribe', handle: (cmd, ctx) => commands.unsubscribe(cmd, ctx) });
