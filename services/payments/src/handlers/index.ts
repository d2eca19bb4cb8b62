import type { Publisher } from '@postbus/bus';
import type { PaymentErasure } from '../domain/erasure-participant';
import type { PaymentCommands } from '../domain/payment-commands';
import { erasureExecuteHandler } from './erasure-execute.handler';
import { paymentRecordHandler } from './payment-record.handler';

/** The payment commands. */
export const paymentHandlers = (commands: PaymentCommands) => [paymentRecordHandler(commands)];

/** Erasures: the person's payments are anonymised and the service forgets them. */
export const erasureHandlers = (erasure: PaymentErasure, publisher: Publisher) => [erasureExecuteHandler(erasure, publisher)];
