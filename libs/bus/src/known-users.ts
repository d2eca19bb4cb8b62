import { Topics } from '@postbus/contracts';
import { defineHandler, type Handler } from './consumer';

/** What a projection of the users the users service announced does with its events (libs/db KnownUsers is one). */
export interface UserDirectory {
  remember(user: { projectId: string; id: string; email: string; userId: string | null }): Promise<void>;
  changeUserId(projectId: string, id: string, userId: string | null): Promise<void>;
}

/** The user events that keep such a projection: user.created, and user_id changes in user.updated. */
export const knownUserHandlers = (users: UserDirectory): Handler[] =>
  [
    defineHandler({
      topic: Topics.UserEvents,
      type: 'user.created',
      handle: (event) => users.remember({ projectId: event.projectId, id: event.id, email: event.email, userId: event.userId }),
    }),
    defineHandler({
      topic: Topics.UserEvents,
      type: 'user.updated',
      handle: async (event) => {
        if (event.changed.includes('user_id')) await users.changeUserId(event.projectId, event.id, event.userId);
      },
    }),
  ] as Handler[];
