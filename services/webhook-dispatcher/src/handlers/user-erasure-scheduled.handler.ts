import { defineHandler } from '@postbus/bus';
import { Topics } from '@postbus/contracts';
import type { EventFanout } from '../domain/event-fanout';
import { userErasureScheduled } from '../domain/webhook-payloads';

/** `user.erasure_scheduled`: the `user.erasure_scheduled` webhook, to the endpoints subscribed to it. */
export const userErasureScheduledHandler = (fanout: EventFanout) =>
  defineHandler({
    topic: Topics.ErasureEvents,
    type: 'user.erasure_scheduled',
    handle: (data, ctx) => fanout.deliver([{ event: userErasureScheduled(data), ctx }]),
    async handleBatch(items) {
      await fanout.deliver(items.map(({ data, ctx }) => ({ event: userErasureScheduled(data), ctx })));
      return [];
    },
  });
