import { defineHandler, type Handler } from '@postbus/bus';
import { Topics } from '@postbus/contracts';
import { messageDocFromTrigger, type TriggerDelivery } from '../domain/trigger-delivery';

/** `email.trigger`: each accepted trigger becomes one email; a run of them is delivered side by side. */
export const emailTriggerHandler = (delivery: TriggerDelivery): Handler<'email.trigger'> =>
  defineHandler({
    topic: Topics.EmailCommands,
    type: 'email.trigger',
    handle: (data) => delivery.one(messageDocFromTrigger(data)),
    handleBatch: (items) => delivery.run(items.map((i) => i.data)),
  });
