import { defineHandler, erasureParticipant, type Publisher } from '@postbus/bus';
import { Topics } from '@postbus/contracts';
import { createFromTrigger } from '../domain/implicit-registration';
import type { UserCommands } from '../user-commands';
import type { UserErasure } from '../user-erasure';

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

/** Its part in erasures: the profile shows a queued erasure; when it runs, the user goes. */
export const erasureHandlers = (erasure: UserErasure, publisher: Publisher) => [
  defineHandler({ topic: Topics.ErasureEvents, type: 'user.erasure_scheduled', handle: (event) => erasure.schedule(event) }),
  erasureParticipant('users', publisher, (subject) => erasure.erase(subject)),
];
