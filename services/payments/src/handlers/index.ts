import { defineHandler, erasureParticipant, type Publisher } from '@postbus/bus';
import { Topics } from '@postbus/contracts';
import type { PaymentCommands } from '../payment-commands';
import type { PaymentErasure } from '../payment-erasure';

/** The payment commands. */
export const paymentHandlers = (commands: PaymentCommands) => [
  defineHandler({ topic: Topics.PaymentCommands, type: 'payment.record', handle: (cmd, ctx) => commands.record(cmd, ctx) }),
];

/** Erasures: the person's payments are anonymised and the service forgets them. */
export const erasureHandlers = (erasure: PaymentErasure, publisher: Publisher) => [
  erasureParticipant('payments', publisher, (subject) => erasure.erase(subject)),
];
