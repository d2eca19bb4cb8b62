import { defineHandler } from '@postbus/bus';
import { Topics } from '@postbus/contracts';
import { createFromTrigger, registersUser } from '../domain/implicit-registration';
import type { UserCommands } from '../domain/user-commands';

/** `email.trigger`: the first trigger for an unknown email registers the user (implicit registration). */
export const emailTriggerHandler = (commands: UserCommands) =>
  defineHandler({
    topic: Topics.EmailCommands,
    type: 'email.trigger',
    handle: async (trigger, ctx) => {
      if (registersUser(trigger)) await commands.create(createFromTrigger(trigger), ctx);
    },
    // The positions createMany leaves are of the registering triggers: mapped back to the run's.
    handleBatch: async (items) => {
      const registering = items.flatMap((item, i) => (registersUser(item.data) ? [{ item, i }] : []));
      const left = await commands.createMany(registering.map(({ item: { data, ctx } }) => ({ data: createFromTrigger(data), ctx })));
      return left.map((k) => registering[k]!.i);
    },
  });
