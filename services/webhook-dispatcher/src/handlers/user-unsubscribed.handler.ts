import { defineHandler } from '@postbus/bus';
import { Topics } from '@postbus/contracts';
import type { EventFanout } from '../domain/event-fanout';
import { userUnsubscribed } from '../domain/webhook-payloads';

/** `user.unsubscribed`: the `user.unsubscribed` webhook, to the endpoints subscribed to it. */
export const userUnsubscribedHandler = (fanout: EventFanout) =>
  defineHandler({
    topic: Topics.UserEvents,
    type: 'user.unsubscribed',
    handle: (data, ctx) => fanout.deliver([{ event: userUnsubscribed(data), ctx }]),
    async handleBatch(items) {
      await fanout.deliver(items.map(({ data, ctx }) => ({ event: userUnsubscribed(data), ctx })));
      return [];
    },
  });
