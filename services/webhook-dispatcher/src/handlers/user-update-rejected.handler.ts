import { defineHandler } from '@postbus/bus';
import { Topics } from '@postbus/contracts';
import type { EventFanout } from '../domain/event-fanout';
import { userUpdateRejected } from '../domain/webhook-payloads';

/** `user.update_rejected`: the `user.update_rejected` webhook, timed when the rejection was published. */
export const userUpdateRejectedHandler = (fanout: EventFanout) =>
  defineHandler({
    topic: Topics.UserEvents,
    type: 'user.update_rejected',
    handle: (data, ctx) => fanout.deliver([{ event: userUpdateRejected(data, ctx.time), ctx }]),
    async handleBatch(items) {
      await fanout.deliver(items.map(({ data, ctx }) => ({ event: userUpdateRejected(data, ctx.time), ctx })));
      return [];
    },
  });
