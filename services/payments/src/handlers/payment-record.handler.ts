import { defineHandler } from '@postbus/bus';
import { Topics } from '@postbus/contracts';
import type { PaymentCommands } from '../domain/payment-commands';

/** `payment.record`: records the payment once, or rejects it when its user never comes. */
export const paymentRecordHandler = (commands: PaymentCommands) =>
  defineHandler({ topic: Topics.PaymentCommands, type: 'payment.record', handle: (cmd, ctx) => commands.record(cmd, ctx) });
