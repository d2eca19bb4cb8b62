import { defineHandler, type Handler } from '@postbus/bus';
import { MessageTopics } from '@postbus/contracts';
import { createFromTrigger, registersUser } from '../domain/implicit-registration';
import type { UserCommands } from '../domain/user-commands';

/**
 * `email.trigger` and `email.bulk_trigger` (a batch send's, on its own lane): the first trigger
 * for an unknown email registers the user (implicit registration).
 */
export const emailTriggerHandler = <T extends 'email.trigger' | 'email.bulk_trigger'>(commands: UserCommands, type: T): Handler<T> =>
  defineHandler<T>({
    topic: MessageTopics[type],
    type,
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
