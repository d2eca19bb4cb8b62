import { defineHandler } from '@postbus/bus';
import { SUPPRESSION_WEBHOOK_EVENT_TYPES, Topics } from '@postbus/contracts';
import type { EventFanout } from '../domain/event-fanout';
import { suppressionChanged } from '../domain/webhook-payloads';

/** `suppression.created` and `suppression.deleted`: one handler per type, each event to the endpoints subscribed to it. */
export const suppressionChangedHandlers = (fanout: EventFanout) =>
  SUPPRESSION_WEBHOOK_EVENT_TYPES.map((type) =>
    defineHandler({
      topic: Topics.EmailEvents,
      // Both carry the same data: typed as one of them.
      type: type as 'suppression.created',
      handle: (data, ctx) => fanout.deliver([{ event: suppressionChanged(type, data), ctx }]),
      async handleBatch(items) {
        await fanout.deliver(items.map(({ data, ctx }) => ({ event: suppressionChanged(type, data), ctx })));
        return [];
      },
    }),
  );
