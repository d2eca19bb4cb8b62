import { defineHandler } from '@postbus/bus';
import { Topics } from '@postbus/contracts';
import type { SuppressionList } from '../domain/suppression-list';

/** `email.unsuppress`: the client lifted an address's suppression (a bounce's, its own, or an unsubscribe with the recipient's consent). */
export const emailUnsuppressHandler = (suppressionList: SuppressionList) =>
  defineHandler({
    topic: Topics.EmailCommands,
    type: 'email.unsuppress',
    handle: async (data, ctx) => {
      await suppressionList.lift(data, ctx.id);
    },
  });
