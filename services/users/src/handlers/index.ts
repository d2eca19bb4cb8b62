import { defineHandler } from '@postbus/bus';
import { Topics } from '@postbus/contracts';
import { createFromTrigger } from '../domain/implicit-registration';
import type { UserCommands } from '../user-commands';

/** The users service's handlers: the user commands, and triggers (which register unknown users). */
export const userHandlers = (commands: UserCommands) => [
  defineHandler({
    topic: Topics.UserCommands,
    type: 'user.create',
    handle: (cmd, ctx) => commands.create(cmd, ctx),
    handleBatch: (items) => commands.createMany(items),
  }),
  defineHandler({ topic: Topics.UserCommands, type: 'user.update', handle: (cmd, ctx) => commands.update(cmd, ctx) }),
  defineHandler({ topic: Topics.UserCommands, type: 'user.unsubscribe', handle: (cmd, ctx) => commands.unsubscribe(cmd, ctx) }),
  defineHandler({
    topic: Topics.EmailCommands,
    type: 'email.trigger',
    handle: (trigger, ctx) => commands.create(createFromTrigger(trigger), ctx),
    handleBatch: (items) => commands.createMany(items.map(({ data, ctx }) => ({ data: createFromTrigger(data), ctx }))),
  }),
];
