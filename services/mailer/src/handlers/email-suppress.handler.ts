import { defineHandler } from '@postbus/bus';
import { Topics } from '@postbus/contracts';
import type { Suppressions } from '../model/suppressions';

/** `email.suppress`: the client suppressed an address for every email of the project (`manual`). */
export const emailSuppressHandler = (suppressions: Suppressions) =>
  defineHandler({
    topic: Topics.EmailCommands,
    type: 'email.suppress',
    handle: async (data) => {
      await suppressions.block(data.projectId, data.email, 'manual', new Date(data.acceptedAt));
    },
  });
