import { defineHandler, erasureParticipant, type Publisher } from '@postbus/bus';
import { Topics } from '@postbus/contracts';
import type { PaymentRepository } from '../model/payment.repository';
import type { PaymentCommands } from '../payment-commands';
import type { PaymentErasure } from '../payment-erasure';

/** The payment commands. */
export const paymentHandlers = (commands: PaymentCommands) => [
  defineHandler({ topic: Topics.PaymentCommands, type: 'payment.record', handle: (cmd, ctx) => commands.record(cmd, ctx) }),
];

/** The users the users service announces: payments may only name those. */
export const userEventHandlers = (payments: PaymentRepository) => [
  defineHandler({
    topic: Topics.UserEvents,
    type: 'user.created',
    handle: (event) => payments.rememberUser({ projectId: event.projectId, id: event.id, email: event.email, userId: event.userId }),
  }),
  defineHandler({
    topic: Topics.UserEvents,
    type: 'user.updated',
    handle: async (event) => {
      if (event.changed.includes('user_id')) await payments.changeUserId(event.projectId, event.id, event.userId);
    },
  }),
];

/** Erasures: the person's payments are anonymised and the service forgets them. */
export const erasureHandlers = (erasure: PaymentErasure, publisher: Publisher) => [
  erasureParticipant('payments', publisher, (subject) => erasure.erase(subject)),
];
