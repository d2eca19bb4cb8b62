import { Type, type Static } from '@sinclair/typebox';
import { Email, FreeFormObject, Nullable, pageOf, PageParams, Timestamp, UserId } from './common';
import { PAYMENT_REJECTED_REASONS } from './values';

/**
 * Active ISO 4217 currency codes (list one, current currencies and funds). Kept here rather than
 * taken from Intl, whose list also holds withdrawn currencies.
 */
export const CURRENCY_CODES = [
  'AED',
  'AFN',
  'ALL',
  'AMD',
  'AOA',
  'ARS',
  'AUD',
  'AWG',
  'AZN',
  'BAM',
  'BBD',
  'BDT',
  'BHD',
  'BIF',
  'BMD',
  'BND',
  'BOB',
  'BOV',
  'BRL',
  'BSD',
  'BTN',
  'BWP',
  'BYN',
  'BZD',
  'CAD',
  'CDF',
  'CHE',
  'CHF',
  'CHW',
  'CLF',
  'CLP',
  'CNY',
  'COP',
  'COU',
  'CRC',
  'CUP',
  'CVE',
  'CZK',
  'DJF',
  'DKK',
  'DOP',
  'DZD',
  'EGP',
  'ERN',
  'ETB',
  'EUR',
  'FJD',
  'FKP',
  'GBP',
  'GEL',
  'GHS',
  'GIP',
  'GMD',
  'GNF',
  'GTQ',
  'GYD',
  'HKD',
  'HNL',
  'HTG',
  'HUF',
  'IDR',
  'ILS',
  'INR',
  'IQD',
  'IRR',
  'ISK',
  'JMD',
  'JOD',
  'JPY',
  'KES',
  'KGS',
  'KHR',
  'KMF',
  'KPW',
  'KRW',
  'KWD',
  'KYD',
  'KZT',
  'LAK',
  'LBP',
  'LKR',
  'LRD',
  'LSL',
  'LYD',
  'MAD',
  'MDL',
  'MGA',
  'MKD',
  'MMK',
  'MNT',
  'MOP',
  'MRU',
  'MUR',
  'MVR',
  'MWK',
  'MXN',
  'MXV',
  'MYR',
  'MZN',
  'NAD',
  'NGN',
  'NIO',
  'NOK',
  'NPR',
  'NZD',
  'OMR',
  'PAB',
  'PEN',
  'PGK',
  'PHP',
  'PKR',
  'PLN',
  'PYG',
  'QAR',
  'RON',
  'RSD',
  'RUB',
  'RWF',
  'SAR',
  'SBD',
  'SCR',
  'SDG',
  'SEK',
  'SGD',
  'SHP',
  'SLE',
  'SOS',
  'SRD',
  'SSP',
  'STN',
  'SVC',
  'SYP',
  'SZL',
  'THB',
  'TJS',
  'TMT',
  'TND',
  'TOP',
  'TRY',
  'TTD',
  'TWD',
  'TZS',
  'UAH',
  'UGX',
  'USD',
  'USN',
  'UYI',
  'UYU',
  'UYW',
  'UZS',
  'VED',
  'VES',
  'VND',
  'VUV',
  'WST',
  'XAF',
  'XAG',
  'XAU',
  'XBA',
  'XBB',
  'XBC',
  'XBD',
  'XCD',
  'XCG',
  'XDR',
  'XOF',
  'XPD',
  'XPF',
  'XPT',
  'XSU',
  'XTS',
  'XUA',
  'YER',
  'ZAR',
  'ZMW',
  'ZWG',
] as const;
export type CurrencyCode = (typeof CURRENCY_CODES)[number];

export const Currency = Type.Unsafe<CurrencyCode>({
  type: 'string',
  enum: [...CURRENCY_CODES],
  description: 'ISO 4217 code, upper-case (e.g. EUR)',
});
/** A calendar day, `YYYY-MM-DD` (UTC). */
export const Day = Type.String({ format: 'date', pattern: '^\\d{4}-\\d{2}-\\d{2}$' });

const PaymentMetadata = FreeFormObject({ maxProperties: 50 });

// ---- HTTP ----

export const CreatePaymentRequest = Type.Object(
  {
    email: Type.Optional(Email),
    user_id: Type.Optional(UserId),
    payment_id: Type.String({ minLength: 1, maxLength: 128, description: "the client's own id of the payment; a repeat is recorded once" }),
    amount: Type.Integer({ minimum: 0, description: 'in minor units (cents)' }),
    currency: Currency,
    paid_at: Type.Optional(Timestamp),
    description: Type.Optional(Type.String({ maxLength: 500 })),
    metadata: Type.Optional(PaymentMetadata),
  },
  { additionalProperties: false, anyOf: [{ required: ['email'] }, { required: ['user_id'] }] },
);
export type CreatePaymentRequest = Static<typeof CreatePaymentRequest>;

export const Payment = Type.Object({
  payment_id: Type.String(),
  email: Type.String(),
  user_id: Nullable(Type.String()),
  amount: Type.Integer(),
  currency: Type.String(),
  paid_at: Timestamp,
  description: Nullable(Type.String()),
  metadata: Type.Record(Type.String(), Type.Unknown()),
  recorded_at: Timestamp,
});
export type Payment = Static<typeof Payment>;

export const PaymentList = pageOf(Payment);
export type PaymentList = Static<typeof PaymentList>;

export const PaymentListQuery = Type.Object(
  {
    email: Type.Optional(Email),
    user_id: Type.Optional(UserId),
    ...PageParams,
  },
  { additionalProperties: false, anyOf: [{ required: ['email'] }, { required: ['user_id'] }] },
);
export type PaymentListQuery = Static<typeof PaymentListQuery>;

export const RevenueQuery = Type.Object({ from: Day, to: Day }, { additionalProperties: false });
export type RevenueQuery = Static<typeof RevenueQuery>;

export const Revenue = Type.Object({
  from: Type.String(),
  to: Type.String(),
  currencies: Type.Array(
    Type.Object({
      currency: Type.String(),
      total: Type.Integer(),
      payments: Type.Integer(),
      paying_users: Type.Integer(),
      average_per_paying_user: Type.Number({ description: 'total / paying_users, in minor units' }),
    }),
  ),
  paying_users: Type.Integer({ description: 'distinct users with a payment in the range, any currency' }),
  days: Type.Array(Type.Object({ day: Type.String(), currency: Type.String(), total: Type.Integer(), payments: Type.Integer() })),
});
export type Revenue = Static<typeof Revenue>;

// ---- Bus ----

const PaymentUserRef = Type.Object(
  { email: Type.Optional(Type.String()), userId: Type.Optional(Type.String()) },
  { additionalProperties: false, anyOf: [{ required: ['email'] }, { required: ['userId'] }] },
);

export const PaymentRecordCommand = Type.Object({
  projectId: Type.String(),
  user: PaymentUserRef,
  paymentId: Type.String(),
  amount: Type.Integer({ minimum: 0 }),
  currency: Type.String({ pattern: '^[A-Z]{3}$' }),
  paidAt: Timestamp,
  description: Type.Optional(Type.String()),
  metadata: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
  acceptedAt: Timestamp,
});
export type PaymentRecordCommand = Static<typeof PaymentRecordCommand>;

export const PaymentRecordedEvent = Type.Object({
  projectId: Type.String(),
  paymentId: Type.String(),
  email: Type.String(),
  userId: Nullable(Type.String()),
  amount: Type.Integer(),
  currency: Type.String(),
  paidAt: Timestamp,
});
export type PaymentRecordedEvent = Static<typeof PaymentRecordedEvent>;

export const PaymentRejectedEvent = Type.Object({
  projectId: Type.String(),
  paymentId: Type.String(),
  user: PaymentUserRef,
  commandId: Type.String(),
  reason: Type.Union(PAYMENT_REJECTED_REASONS.map((reason) => Type.Literal(reason))),
});
export type PaymentRejectedEvent = Static<typeof PaymentRejectedEvent>;
