import { Schema, type Connection } from 'mongoose';

export interface PaymentDoc {
  /** `<projectId>:<paymentId>`: a repeated payment_id is recorded once. */
  _id: string;
  projectId: string;
  paymentId: string;
  /** The user's email (normalised) as the users service knows it: the key of "paying users". */
  email: string;
  userId: string | null;
  amount: number;
  currency: string;
  paidAt: Date;
  /** UTC `YYYY-MM-DD` of paidAt: revenue groups by it (FerretDB has no $dateToString). */
  day: string;
  description: string | null;
  metadata: Record<string, unknown>;
  commandId: string;
  recordedAt: Date;
}

const paymentSchema = new Schema<PaymentDoc>(
  {
    _id: { type: String, required: true },
    projectId: { type: String, required: true },
    paymentId: { type: String, required: true },
    email: { type: String, required: true },
    userId: { type: String, default: null },
    amount: { type: Number, required: true },
    currency: { type: String, required: true },
    paidAt: { type: Date, required: true },
    day: { type: String, required: true },
    description: { type: String, default: null },
    metadata: { type: Schema.Types.Mixed, default: () => ({}) },
    commandId: { type: String, required: true },
    recordedAt: { type: Date, required: true },
  },
  { collection: 'payments', minimize: false, versionKey: false },
);
paymentSchema.index({ projectId: 1, email: 1, paidAt: -1 });
paymentSchema.index({ projectId: 1, day: 1 });

export function paymentModels(connection: Connection) {
  return {
    Payment: connection.model<PaymentDoc>('Payment', paymentSchema),
  };
}
export type PaymentModels = ReturnType<typeof paymentModels>;
