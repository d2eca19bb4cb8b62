import { defineHandler, type Handler, type SendPathPriority } from '@postbus/bus';
import { MessageTopics } from '@postbus/contracts';
import { createFromTrigger, registersUser } from '../domain/implicit-registration';
import type { UserCommands } from '../domain/user-commands';

/**
 * `email.trigger` and `email.bulk_trigger` (a batch send's, on its own lane): the first trigger
 * for an unknown email registers the user (implicit registration). Single sends mark the send path
 * busy while they are handled; a batch's registrations wait for their turn at its bounded rate
 * meanwhile, so that thousands of them never crowd the database under another client's mail.
 */
export const emailTriggerHandler = <T extends 'email.trigger' | 'email.bulk_trigger'>(
  commands: UserCommands,
  type: T,
  singles: Pick<SendPathPriority, 'delivering' | 'admit'>,
): Handler<T> => {
  const paced = async <R>(count: number, work: () => Promise<R>): Promise<R> => {
    if (type === 'email.trigger') return singles.delivering(work);
    await singles.admit(count);
    return work();
  };
  return defineHandler<T>({
    topic: MessageTopics[type],
    type,
    handle: async (trigger, ctx) => {
      if (registersUser(trigger)) await paced(1, () => commands.create(createFromTrigger(trigger), ctx));
    },
    // The positions createMany leaves are of the registering triggers: mapped back to the run's.
    handleBatch: async (items) => {
      const registering = items.flatMap((item, i) => (registersUser(item.data) ? [{ item, i }] : []));
      const left = await paced(registering.length, () =>
        commands.createMany(registering.map(({ item: { data, ctx } }) => ({ data: createFromTrigger(data), ctx }))),
      );
      return left.map((k) => registering[k]!.i);
    },
  });
};
