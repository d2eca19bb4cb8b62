import { defineHandler } from '@postbus/bus';
import { Topics } from '@postbus/contracts';
import type { Suppressions } from '../model/suppressions';

/** `user.unsubscribed`: users who unsubscribed get no more mail (send_to_unsubscribed emails aside). */
export const userUnsubscribedHandler = (suppressions: Suppressions) =>
  defineHandler({
    topic: Topics.UserEvents,
    type: 'user.unsubscribed',
    handle: (data) => suppressions.add(data.projectId, data.email, 'unsubscribed', new Date(data.unsubscribedAt)),
  });
