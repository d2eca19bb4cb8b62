import { defineHandler } from '@postbus/bus';
import { Topics } from '@postbus/contracts';
import type { SuppressionList } from '../domain/suppression-list';

/** `email.suppress`: the client suppressed an address for every email of the project (`manual`). */
export const emailSuppressHandler = (suppressionList: SuppressionList) =>
  defineHandler({
    topic: Topics.EmailCommands,
    type: 'email.suppress',
    handle: async (data) => {
      await suppressionList.block([{ projectId: data.projectId, email: data.email, reason: 'manual', at: new Date(data.acceptedAt) }]);
    },
  });
