import { isDuplicateKeyError, KeyedSerializer } from '@postbus/db';
import type { UserRef } from '@postbus/contracts';
import type { KnownUserDoc, PaymentDoc, PaymentModels } from './payment.schema';

export type NewPayment = Omit<PaymentDoc, '_id' | 'day' | 'recordedAt'>;

export interface RevenueFigures {
  currencies: { currency: string; total: number; payments: number; payingUsers: number }[];
  payingUsers: number;
  days: { day: string; currency: string; total: number; payments: number }[];
}

const emailKey = (projectId: string, email: string) => `${projectId}:email:${email}`;
const uidKey = (projectId: string, userId: string) => `${projectId}:uid:${userId}`;

/** UTC `YYYY-MM-DD` of a date. */
export const dayOf = (date: Date): string => date.toISOString().slice(0, 10);

/** Every read and write of the payments service's own collections. */
export class PaymentRepository {
  /** Writes to one known-user document one at a time (see KeyedSerializer). */
  private readonly perUser = new KeyedSerializer();

  constructor(private readonly models: PaymentModels) {}

  async init(): Promise<void> {
    await Promise.all([this.models.Payment.init(), this.models.KnownUser.init()]);
  }

  /** The user a payment names, if the users service has announced them. */
  async findUser(projectId: string, ref: UserRef): Promise<KnownUserDoc | null> {
    const id = ref.email !== undefined ? emailKey(projectId, ref.email) : uidKey(projectId, ref.userId ?? '');
    return this.models.KnownUser.findById(id).lean<KnownUserDoc>().exec();
  }

  /** Remembers a user (user.created); idempotent. */
  async rememberUser(user: Omit<KnownUserDoc, '_id'>): Promise<void> {
    const keys = [emailKey(user.projectId, user.email), ...(user.userId ? [uidKey(user.projectId, user.userId)] : [])];
    await Promise.all(
      keys.map((key) =>
        this.perUser.run(key, () => this.models.KnownUser.updateOne({ _id: key }, { $set: user }, { upsert: true }).exec()),
      ),
    );
  }

  /** A known user's user_id changed (user.updated): they can be named by it from now on. */
  async changeUserId(projectId: string, id: string, userId: string | null): Promise<void> {
    const known = await this.models.KnownUser.findOne({ id, projectId, _id: { $regex: ':email:' } })
      .lean<KnownUserDoc>()
      .exec();
    if (!known || known.userId === userId) return;
    await this.rememberUser({ projectId, id, email: known.email, userId });
  }

  /** The ways this service knows a user by (their email and user_id), from the users service's id. */
  async namesOf(projectId: string, id: string): Promise<UserRef[]> {
    const known = await this.models.KnownUser.find({ id, projectId }).lean<KnownUserDoc[]>().exec();
    return known.flatMap((k) => [{ email: k.email }, ...(k.userId ? [{ userId: k.userId }] : [])]);
  }

  /**
   * Forgets the users named (their known-user entries), only those of the erased user when the
   * users service's id is known (a new user may have the address by now); returns how many went.
   */
  async forgetUsers(projectId: string, refs: UserRef[], id: string | null): Promise<number> {
    const keys = [
      ...new Set(refs.map((ref) => (ref.email !== undefined ? emailKey(projectId, ref.email) : uidKey(projectId, ref.userId ?? '')))),
    ];
    // Through the serializer: a user event being applied to the same entry must not bring it back.
    const results = await Promise.all(
      keys.map((key) => this.perUser.run(key, () => this.models.KnownUser.deleteOne({ _id: key, ...(id !== null ? { id } : {}) }).exec())),
    );
    return results.reduce((sum, r) => sum + r.deletedCount, 0);
  }

  /**
   * Irreversibly strips the payments of the users named (recorded up to the erasure) of everything personal: they stay in the
   * revenue, under `pseudonym` (one per erased person, so that paying users still count right).
   * One updateMany: FerretDB scans the collection for every update. Returns how many changed.
   */
  async anonymise(projectId: string, refs: UserRef[], pseudonym: string, recordedBefore: Date): Promise<number> {
    const emails = [...new Set(refs.flatMap((r) => (r.email !== undefined ? [r.email] : [])))];
    const userIds = [...new Set(refs.flatMap((r) => (r.userId !== undefined ? [r.userId] : [])))];
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
