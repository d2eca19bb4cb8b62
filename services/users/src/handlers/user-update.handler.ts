import { defineHandler } from '@postbus/bus';
import { Topics } from '@postbus/contracts';
import type { UserCommands } from '../domain/user-commands';

/** `user.update`: applies the changes, or parks the command until the user's create arrives. */
export const userUpdateHandler = (commands: UserCommands) =>
  defineHandler({ topic: Topics.UserCommands, type: 'user.update', handle: (cmd, ctx) => commands.update(cmd, ctx) });
