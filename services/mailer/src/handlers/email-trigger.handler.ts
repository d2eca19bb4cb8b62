import { defineHandler, type Handler } from '@postbus/bus';
import { Topics } from '@postbus/contracts';
import type { SendPathPriority } from '../domain/send-path-priority';
import { messageDocFromTrigger, type TriggerDelivery } from '../domain/trigger-delivery';

/** `email.trigger`: each accepted trigger becomes one email; a run of them is delivered side by side, the send path busy meanwhile. */
export const emailTriggerHandler = (delivery: TriggerDelivery, sendPath: SendPathPriority): Handler<'email.trigger'> =>
  defineHandler({
    topic: Topics.EmailCommands,
    type: 'email.trigger',
    handle: (data) => sendPath.delivering(() => delivery.one(messageDocFromTrigger(data))),
    handleBatch: (items) => sendPath.delivering(() => delivery.run(items.map((i) => i.data))),
  });
