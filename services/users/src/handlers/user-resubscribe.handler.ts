import { defineHandler } from '@postbus/bus';
import { Topics } from '@postbus/contracts';
import type { UserCommands } from '../domain/user-commands';

/** `user.resubscribe`: subscribes the user again, or parks the command until the user's create arrives. */
export const userResubscribeHandler = (commands: UserCommands) =>
  defineHandler({ topic: Topics.UserCommands, type: 'user.resubscribe', handle: (cmd, ctx) => commands.resubscribe(cmd, ctx) });
