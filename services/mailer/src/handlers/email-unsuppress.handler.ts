import { defineHandler } from '@postbus/bus';
import { Topics } from '@postbus/contracts';
import type { Suppressions } from '../model/suppressions';

/** `email.unsuppress`: the client lifted an address's suppression (a bounce's or its own); an unsubscribe stays. */
export const emailUnsuppressHandler = (suppressions: Suppressions) =>
  defineHandler({
    topic: Topics.EmailCommands,
    type: 'email.unsuppress',
    handle: async (data) => {
      await suppressions.unblock(data.projectId, data.email);
    },
  });
