import { growing, SequenceLists } from '@postbus/db';
import { Schema, type Connection } from 'mongoose';
import type { PaymentRecord } from '../domain/records';

const paymentSchema = growing(
  new Schema<PaymentRecord>(
    {
      _id: { type: String, required: true },
      projectId: { type: String, required: true },
      paymentId: { type: String, required: true },
      email: { type: String, required: true },
      userId: { type: String, default: null },
      uid: { type: String, default: null },
      amount: { type: Number, required: true },
      currency: { type: String, required: true },
      paidAt: { type: Date, required: true },
      day: { type: String, required: true },
      description: { type: String, default: null },
      metadata: { type: Schema.Types.Mixed, default: () => ({}) },
      commandId: { type: String, required: true },
      recordedAt: { type: Date, required: true },
      rolledUp: { type: Boolean, default: false },
    },
    // Every read is by `_id` (the lists below say which): no other index, on MongoDB either.
    { collection: 'payments', minimize: false, versionKey: false },
  ),
);

/**
 * One instance's share of a project's revenue on one day in one currency:
 * `_id` `<projectId>:<day>:<currency>:<instance>`, incremented by `_id` by that instance alone
 * (FerretDB updates are not atomic across connections), summed at read.
 */
export interface RevenueShardDoc {
  _id: string;
  projectId: string;
  day: string;
  currency: string;
  total: number;
  payments: number;
  /** Hashes of the users who paid that day in that currency, each in one shard only (see RevenuePayerDoc). */
  payers: string[];
}

const revenueShardSchema = growing(
  new Schema<RevenueShardDoc>(
    { _id: String, projectId: String, day: String, currency: String, total: Number, payments: Number, payers: [String] },
    { collection: 'revenue_shards', versionKey: false },
  ),
);

/** `<projectId>:<day>:<currency>:<payer hash>`: its unique insert decides which shard counts the payer for that day. */
export interface RevenuePayerDoc {
  _id: string;
}

const revenuePayerSchema = growing(new Schema<RevenuePayerDoc>({ _id: String }, { collection: 'revenue_payers', versionKey: false }));

export function paymentModels(connection: Connection) {
  return {
    Payment: connection.model<PaymentRecord>('Payment', paymentSchema),
    RevenueShard: connection.model<RevenueShardDoc>('RevenueShard', revenueShardSchema),
    RevenuePayer: connection.model<RevenuePayerDoc>('RevenuePayer', revenuePayerSchema),
    /**
     * `<projectId>:user:<uid>`: a user's payments in the order they were recorded;
     * `<projectId>:erased:<erasure id>`: the payments an erasure anonymised;
     * `<projectId>:shards:<YYYY-MM>`: the revenue shards of a month (`<day>|<currency>|<instance>`).
     * Payments are kept (anonymised, never expired), so no list is ever walked: none is registered.
     */
    lists: new SequenceLists(connection, 'payment_lists', { registry: false }),
  };
}
export type PaymentModels = ReturnType<typeof paymentModels>;
