import type { UserRef } from '@postbus/contracts';
import { isDuplicateKeyError, type UserName } from '@postbus/db';
import type { PaymentDoc, PaymentModels } from './payment.schema';

export type NewPayment = Omit<PaymentDoc, '_id' | 'day' | 'recordedAt'>;

export interface RevenueFigures {
  currencies: { currency: string; total: number; payments: number; payingUsers: number }[];
  payingUsers: number;
  days: { day: string; currency: string; total: number; payments: number }[];
}

/** UTC `YYYY-MM-DD` of a date. */
export const dayOf = (date: Date): string => date.toISOString().slice(0, 10);

/** Every read and write of the payments service's own collections. */
export class PaymentRepository {
  constructor(private readonly models: PaymentModels) {}

  async init(): Promise<void> {
    await this.models.Payment.init();
  }

  /**
   * Irreversibly strips the payments of the users named (recorded up to the erasure) of everything
   * personal: they stay in the revenue, under `pseudonym` (one per erased person, so that paying
   * users still count right).
   * One updateMany: FerretDB scans the collection for every update. Returns how many changed.
   */
  async anonymise(projectId: string, names: UserName[], pseudonym: string, recordedBefore: Date): Promise<number> {
    const emails = [...new Set(names.flatMap((n) => (n.email ? [n.email] : [])))];
    const userIds = [...new Set(names.flatMap((n) => (n.userId ? [n.userId] : [])))];
    const match = [...(emails.length ? [{ email: { $in: emails } }] : []), ...(userIds.length ? [{ userId: { $in: userIds } }] : [])];
    if (match.length === 0) return 0;
    const { modifiedCount } = await this.models.Payment.updateMany(
      { projectId, recordedAt: { $lte: recordedBefore }, $or: match },
      { $set: { email: pseudonym, userId: null, description: null, metadata: {} } },
    ).exec();
    return modifiedCount;
  }

  /** Inserts the payment; 'duplicate' when this project already has that payment_id. */
  async insert(payment: NewPayment, now: Date): Promise<PaymentDoc | 'duplicate'> {
    try {
      const doc = await this.models.Payment.create({
        ...payment,
        _id: `${payment.projectId}:${payment.paymentId}`,
        day: dayOf(payment.paidAt),
        recordedAt: now,
      });
      return doc.toObject();
    } catch (error) {
      if (isDuplicateKeyError(error)) return 'duplicate';
      throw error;
    }
  }

  async byId(projectId: string, paymentId: string): Promise<PaymentDoc | null> {
    return this.models.Payment.findById(`${projectId}:${paymentId}`).lean<PaymentDoc>().exec();
  }

  /** A user's payments, newest paid first, strictly after the position (paid at, id) when given. */
  async list(projectId: string, ref: UserRef, limit: number, after?: { paidAt: Date; id: string }): Promise<PaymentDoc[]> {
    const filter: Record<string, unknown> =
      ref.email !== undefined ? { projectId, email: ref.email } : { projectId, userId: ref.userId ?? '' };
    if (after) filter['$or'] = [{ paidAt: { $lt: after.paidAt } }, { paidAt: after.paidAt, _id: { $lt: after.id } }];
    return this.models.Payment.find(filter).sort({ paidAt: -1, _id: -1 }).limit(limit).lean<PaymentDoc[]>().exec();
  }

  /** Totals per currency and per day and currency, and paying users, over the days from..to (inclusive). */
  async revenue(projectId: string, from: string, to: string): Promise<RevenueFigures> {
    const match = { $match: { projectId, day: { $gte: from, $lte: to } } };
    type Row<K> = { _id: K; value: number };
    // FerretDB 1.24 computes only the first accumulator of a $group (the others come back 0), and
    // has no $addToSet: one accumulator per aggregation, distinct users from a group by (currency, email).
    const group = <K>(_id: Record<string, string>, value: { $sum: string | number }) =>
      this.models.Payment.aggregate<Row<K>>([match, { $group: { _id, value } }]).exec();
    const [totals, counts, byUser] = await Promise.all([
      group<{ day: string; currency: string }>({ day: '$day', currency: '$currency' }, { $sum: '$amount' }),
      group<{ day: string; currency: string }>({ day: '$day', currency: '$currency' }, { $sum: 1 }),
      group<{ currency: string; email: string }>({ currency: '$currency', email: '$email' }, { $sum: 1 }),
    ]);
    const dayKey = (k: { day: string; currency: string }) => `${k.day}|${k.currency}`;
    const countOf = new Map(counts.map((row) => [dayKey(row._id), row.value]));
    const days = totals
      .map((row) => ({ day: row._id.day, currency: row._id.currency, total: row.value, payments: countOf.get(dayKey(row._id)) ?? 0 }))
      .sort((a, b) => a.day.localeCompare(b.day) || a.currency.localeCompare(b.currency));
    const currencies = new Map<string, { currency: string; total: number; payments: number; payingUsers: number }>();
    for (const d of days) {
      const c = currencies.get(d.currency) ?? { currency: d.currency, total: 0, payments: 0, payingUsers: 0 };
      c.total += d.total;
      c.payments += d.payments;
      currencies.set(d.currency, c);
    }
    const users = new Set<string>();
    for (const row of byUser) {
      const c = currencies.get(row._id.currency);
      if (c) c.payingUsers += 1;
      users.add(row._id.email);
    }
    return {
      currencies: [...currencies.values()].sort((a, b) => a.currency.localeCompare(b.currency)),
      payingUsers: users.size,
      days,
    };
  }
}
