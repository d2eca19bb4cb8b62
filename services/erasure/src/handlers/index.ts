import { defineHandler, type Handler } from '@postbus/bus';
import { Topics } from '@postbus/contracts';
import type { Erasures } from '../erasures';
import type { ErasureRepository } from '../model/erasure.repository';

/** Erase requests from the gateway and the participants' confirmations. */
export const erasureHandlers = (erasures: Erasures): Handler[] =>
  [
    defineHandler({ topic: Topics.ErasureCommands, type: 'erasure.request', handle: (cmd, ctx) => erasures.request(cmd, ctx) }),
    defineHandler({ topic: Topics.ErasureEvents, type: 'erasure.confirmed', handle: (event, ctx) => erasures.confirmed(event, ctx) }),
  ] as Handler[];

/** The users the users service announces: an erase may name them by email or by user_id. */
export const userEventHandlers = (repository: ErasureRepository): Handler[] =>
  [
    defineHandler({
      topic: Topics.UserEvents,
      type: 'user.created',
      handle: (event) => repository.rememberUser({ projectId: event.projectId, id: event.id, email: event.email, userId: event.userId }),
    }),
    defineHandler({
      topic: Topics.UserEvents,
      type: 'user.updated',
      handle: async (event) => {
        if (event.changed.includes('user_id')) await repository.changeUserId(event.projectId, event.id, event.userId);
      },
    }),
  ] as Handler[];
