import { defineHandler } from '@postbus/bus';
import { Topics } from '@postbus/contracts';
import { createFromTrigger } from '../domain/implicit-registration';
import type { UserCommands } from '../domain/user-commands';

/** `email.trigger`: the first trigger for an unknown email registers the user (implicit registration). */
export const emailTriggerHandler = (commands: UserCommands) =>
  defineHandler({
    topic: Topics.EmailCommands,
    type: 'email.trigger',
    handle: (trigger, ctx) => commands.create(createFromTrigger(trigger), ctx),
    handleBatch: (items) => commands.createMany(items.map(({ data, ctx }) => ({ data: createFromTrigger(data), ctx }))),
  });
