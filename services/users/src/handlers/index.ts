import { defineHandler } from '@postbus/bus';
import { Topics } from '@postbus/contracts';
import type { UserCommands } from '../user-commands';

/** The users service's handlers, one per command type on the user commands topic. */
export const userHandlers = (commands: UserCommands) => [
  defineHandler({
    topic: Topics.UserCommands,
    type: 'user.create',
    handle: (cmd, ctx) => commands.create(cmd, ctx),
    handleBatch: (items) => commands.createMany(items),
  }),
  defineHandler({ topic: Topics.UserCommands, type: 'user.update', handle: (cmd, ctx) => commands.update(cmd, ctx) }),
  defineHandler({ topic: Topics.UserCommands, type: 'user.unsubscribe', handle: (cmd, ctx) => commands.unsubscribe(cmd, ctx) }),
];
