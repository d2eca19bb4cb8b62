import { defineHandler } from '@postbus/bus';
import { MESSAGE_WEBHOOK_EVENTS, Topics } from '@postbus/contracts';
import type { EventFanout } from '../domain/event-fanout';
import { messageEvent } from '../domain/webhook-payloads';

/**
 * `message.*` (the events in MESSAGE_WEBHOOK_EVENTS): one handler per type, so that a run of
 * consecutive messages never mixes two types; each event goes to the endpoints subscribed to it.
 */
export const messageEventHandlers = (fanout: EventFanout) =>
  MESSAGE_WEBHOOK_EVENTS.map((e) =>
    defineHandler({
      topic: Topics.EmailEvents,
      // Every message event carries the same data: typed as one of them.
      type: `message.${e}` as 'message.sent',
      handle: (data, ctx) => fanout.deliver([{ event: messageEvent(`message.${e}`, data), ctx }]),
      async handleBatch(items) {
        await fanout.deliver(items.map(({ data, ctx }) => ({ event: messageEvent(`message.${e}`, data), ctx })));
        return [];
      },
    }),
  );
