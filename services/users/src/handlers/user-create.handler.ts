import { defineHandler } from '@postbus/bus';
import { Topics } from '@postbus/contracts';
import type { UserCommands } from '../domain/user-commands';

/** `user.create`: creates the user, or merges what the create says into the user it names. */
export const userCreateHandler = (commands: UserCommands) =>
  defineHandler({
    topic: Topics.UserCommands,
    type: 'user.create',
    handle: (cmd, ctx) => commands.create(cmd, ctx),
    handleBatch: (items) => commands.createMany(items),
  });
