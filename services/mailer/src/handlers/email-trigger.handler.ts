import { defineHandler, type Handler, type SendPathPriority } from '@postbus/bus';
import { Topics } from '@postbus/contracts';
import type { BulkLane } from '../domain/bulk-lane';
import { messageDocFromTrigger, type TriggerDelivery } from '../domain/trigger-delivery';

/**
 * `email.trigger`: each accepted trigger becomes one email; a run of them is delivered side by
 * side, the send path busy meanwhile (delivery reports wait) and the single sends busy (batch
 * messages wait).
 */
export const emailTriggerHandler = (
  delivery: TriggerDelivery,
  sendPath: SendPathPriority,
  singles: SendPathPriority,
): Handler<'email.trigger'> =>
  defineHandler({
    topic: Topics.EmailCommands,
    type: 'email.trigger',
    handle: (data) => singles.delivering(() => sendPath.delivering(() => delivery.one(messageDocFromTrigger(data)))),
    handleBatch: (items) => singles.delivering(() => sendPath.delivering(() => delivery.run(items.map((i) => i.data)))),
  });

/** `email.bulk_trigger`: a batch send's messages, delivered as triggers are once the batch lane has its turn (BulkLane). */
export const emailBulkTriggerHandler = (
  delivery: TriggerDelivery,
  sendPath: SendPathPriority,
  lane: BulkLane,
): Handler<'email.bulk_trigger'> =>
  defineHandler({
    topic: Topics.EmailBulk,
    type: 'email.bulk_trigger',
    handle: async (data) => {
      await lane.admit([data]);
      await sendPath.delivering(() => delivery.one(messageDocFromTrigger(data)));
    },
    handleBatch: async (items) => {
      const triggers = items.map((i) => i.data);
      await lane.admit(triggers);
      return sendPath.delivering(() => delivery.run(triggers));
    },
  });
