/** A payment as the payments service keeps it. */
export interface PaymentRecord {
  /** `<projectId>:<paymentId>`: a repeated payment_id is recorded once. */
  _id: string;
  projectId: string;
  paymentId: string;
  /** The user's email (normalised) as the users service knows it; `erased:<erasure id>` once anonymised. */
  email: string;
  userId: string | null;
  /** The users service's id of the user: the key of the user's payment list and of "paying users". */
  uid: string | null;
  amount: number;
  currency: string;
  paidAt: Date;
  /** UTC `YYYY-MM-DD` of paidAt: the revenue rollup's day. */
  day: string;
  description: string | null;
  metadata: Record<string, unknown>;
  commandId: string;
  recordedAt: Date;
  /** Counted in the revenue rollup (a redelivery after a crash counts a payment that was not). */
  rolledUp: boolean;
}
