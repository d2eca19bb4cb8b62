import { Type } from '@sinclair/typebox';
import { CommonConfig, InternalApiConfig } from '@postbus/config';

export const PaymentsConfig = Type.Object({
  ...CommonConfig,
  ...InternalApiConfig,
  PORT: Type.Integer({ minimum: 0, maximum: 65535, default: 8084, description: 'internal read API port' }),
  PAYMENTS_DB_NAME: Type.String({
    default: 'postbus_payments',
    pattern: '^[A-Za-z0-9_-]+$',
    description: "the payments service's own database",
  }),
  PAYMENT_USER_WAIT_MS: Type.Integer({
    minimum: 0,
    default: 30_000,
    description: 'how long a payment for a user that does not exist yet waits for the user before it is rejected',
  }),
});

export type PaymentsConfig = typeof PaymentsConfig.static;
