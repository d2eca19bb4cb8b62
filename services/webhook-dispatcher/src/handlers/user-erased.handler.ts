import { defineHandler } from '@postbus/bus';
import { Topics } from '@postbus/contracts';
import type { EventFanout } from '../domain/event-fanout';
import { userErased } from '../domain/webhook-payloads';

/** `user.erased`: the `user.erased` webhook (naming no one), to the endpoints subscribed to it. */
export const userErasedHandler = (fanout: EventFanout) =>
  defineHandler({
    topic: Topics.ErasureEvents,
    type: 'user.erased',
    handle: (data, ctx) => fanout.deliver([{ event: userErased(data), ctx }]),
    async handleBatch(items) {
      await fanout.deliver(items.map(({ data, ctx }) => ({ event: userErased(data), ctx })));
      return [];
    },
  });
