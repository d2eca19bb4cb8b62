import { defineHandler } from '@postbus/bus';
import { Topics } from '@postbus/contracts';
import type { SuppressionList } from '../domain/suppression-list';

/** `user.unsubscribed`: users who unsubscribed get no more mail (send_to_unsubscribed emails aside). */
export const userUnsubscribedHandler = (suppressionList: SuppressionList) =>
  defineHandler({
    topic: Topics.UserEvents,
    type: 'user.unsubscribed',
    handle: (data) => suppressionList.unsubscribed(data.projectId, data.email, new Date(data.unsubscribedAt)),
  });
