import { createHash, randomBytes } from 'node:crypto';
import { GroupCommit, inParallel, insertNew, isDuplicateKeyError, type ListEntry } from '@postbus/db';
import { erasedList, userList } from '../domain/payment-lists';
import type { ListedPayment, NewPayment, PaymentCommandStore, PaymentErasureStore } from '../domain/ports';
import type { PaymentRecord } from '../domain/records';
import type { PaymentModels, RevenueShardDoc } from './payment.schema';

export interface RevenueFigures {
  currencies: { currency: string; total: number; payments: number; payingUsers: number }[];
  payingUsers: number;
  days: { day: string; currency: string; total: number; payments: number }[];
}

/** UTC `YYYY-MM-DD` of a date. */
export const dayOf = (date: Date): string => date.toISOString().slice(0, 10);

export const paymentKey = (projectId: string, paymentId: string): string => `${projectId}:${paymentId}`;
export { erasedList, userList } from '../domain/payment-lists';
const monthsList = (projectId: string): string => `${projectId}:months`;
const shardsList = (projectId: string, month: string): string => `${projectId}:shards:${month}`;

/**
 * What stands for a paying user in the rollup: a hash of the users service's id (not of anything
 * personal), so that an erasure, which keeps the payments in the revenue, changes no figure.
 */
export const payerHash = (projectId: string, uid: string): string =>
  createHash('sha256').update(`${projectId}:${uid}`).digest('base64url').slice(0, 12);

/** Entries read per page when walking a whole list. */
const PAGE = 200;

/**
 * Every read and write of the payments service's own collections, each a point operation by
 * `_id` or an insert (no index but `_id` is needed on MongoDB either):
 * - a user's payments: the list `<project>:user:<uid>` (SequenceLists), then each payment by `_id`;
 * - revenue: per project, day, currency and instance one shard document incremented by `_id` by
 *   its instance alone, found through per-month lists of shards; summed at read.
 */
export class PaymentRepository implements PaymentCommandStore, PaymentErasureStore {
  /** This process's shards: a random id per start, so that no two instances write one document. */
  private readonly instance = randomBytes(4).toString('hex');
  /** Shards (and months) this process has registered, so that it registers each once. */
  private readonly registered = new Set<string>();
  /** Rollup increments from all partitions, one group at a time (each shard has one writer). */
  private readonly rollup = new GroupCommit<PaymentRecord>((payments) => this.rollUp(payments));

  constructor(private readonly models: PaymentModels) {}

  async init(): Promise<void> {
    await Promise.all([
      this.models.Payment.init(),
      this.models.RevenueShard.init(),
      this.models.RevenuePayer.init(),
      this.models.lists.init(),
    ]);
  }

  /** Inserts the payment; 'duplicate' when this project already has that payment_id. */
  async insert(payment: NewPayment, now: Date): Promise<PaymentRecord | 'duplicate'> {
    try {
      const doc = await this.models.Payment.create({
        ...payment,
        _id: paymentKey(payment.projectId, payment.paymentId),
        day: dayOf(payment.paidAt),
        recordedAt: now,
        rolledUp: false,
      });
      return doc.toObject();
    } catch (error) {
      if (isDuplicateKeyError(error)) return 'duplicate';
      throw error;
    }
  }

  /**
   * After the insert: the payment goes on its user's list (once, also when a redelivery repeats
   * this) and into the revenue rollup unless it is counted already. Resolves when both are stored.
   */
  async recorded(payment: PaymentRecord, known: 'new' | 'maybe-seen'): Promise<void> {
    if (payment.uid)
      await this.models.lists.appendOnce([
        {
          key: `pay:${payment._id}`,
          items: [{ list: userList(payment.projectId, payment.uid), at: payment.recordedAt, value: payment.paymentId }],
          known,
        },
      ]);
    if (!payment.rolledUp) await this.rollup.add(payment);
  }

  /**
   * Records many payments at once, as recording each would (the seed of `npm run bench:data`):
   * one insertMany, their list entries, one rollup. Not idempotent: for an empty project.
   */
  async bulkRecord(payments: NewPayment[], now: Date): Promise<void> {
    const docs: PaymentRecord[] = payments.map((p) => ({
      ...p,
      _id: paymentKey(p.projectId, p.paymentId),
      day: dayOf(p.paidAt),
      recordedAt: now,
      rolledUp: true,
    }));
    await this.models.Payment.insertMany(docs, { ordered: false, lean: true });
    await this.models.lists.append(
      docs.filter((d) => d.uid).map((d) => ({ list: userList(d.projectId, d.uid!), at: d.recordedAt, value: d.paymentId })),
    );
    await this.rollUp(docs, false);
  }

  async byId(projectId: string, paymentId: string): Promise<PaymentRecord | null> {
    return this.models.Payment.findById(paymentKey(projectId, paymentId)).lean<PaymentRecord>().exec();
  }

  /** A page of a list, newest first, each entry with its payment (point reads). */
  async page(projectId: string, list: string, limit: number, beforeSeq?: number): Promise<ListedPayment[]> {
    const { entries } = await this.models.lists.page(list, { limit, ...(beforeSeq !== undefined ? { beforeSeq } : {}) });
    return inParallel(entries, async (e) => ({ seq: e.seq, at: e.at, payment: await this.byId(projectId, e.value) }));
  }

  /**
   * Irreversibly strips the payments the users (by the users service's ids) had recorded up to the
   * erasure of everything personal: they stay in the revenue, under `pseudonym` (one per erased
   * person). Walks each user's list in chunks of point reads and updates; each anonymised payment
   * goes on the erasure's list first, so an interrupted run resumes (a payment anonymised already
   * is skipped). The user's list goes last. Returns how many payments changed.
   */
  async anonymise(projectId: string, uids: string[], erasureId: string, pseudonym: string, recordedBefore: Date): Promise<number> {
    let changed = 0;
    for (const uid of uids) {
      const list = userList(projectId, uid);
      for (let beforeSeq: number | undefined; ;) {
        const page = await this.models.lists.page(list, { limit: PAGE, ...(beforeSeq !== undefined ? { beforeSeq } : {}) });
        changed += await this.anonymiseChunk(projectId, page.entries, erasureId, pseudonym, recordedBefore);
        if (page.next === null) break;
        beforeSeq = page.next;
      }
      await this.models.lists.trim(list, new Date(recordedBefore.getTime() + 1));
    }
    return changed;
  }

  /** Totals per currency and per day and currency, and paying users, over the days from..to (inclusive), from the rollup. */
  async revenue(projectId: string, from: string, to: string): Promise<RevenueFigures> {
    const months = [...new Set((await this.wholeList(monthsList(projectId))).map((e) => e.value))].filter(
      (m) => m >= from.slice(0, 7) && m <= to.slice(0, 7),
    );
    const shardIds = (await inParallel(months, (month) => this.wholeList(shardsList(projectId, month))))
      .flat()
      .map((e) => e.value.split('|') as [string, string, string])
      .filter(([day]) => day >= from && day <= to)
      .map(([day, currency, instance]) => `${projectId}:${day}:${currency}:${instance}`);
    const shards = (
      await inParallel([...new Set(shardIds)], (id) => this.models.RevenueShard.findById(id).lean<RevenueShardDoc>().exec())
    ).filter((s): s is RevenueShardDoc => s !== null);
    const days = new Map<string, { day: string; currency: string; total: number; payments: number }>();
    const payersOf = new Map<string, Set<string>>();
    const everyone = new Set<string>();
    for (const s of shards) {
      const key = `${s.day}|${s.currency}`;
      const d = days.get(key) ?? { day: s.day, currency: s.currency, total: 0, payments: 0 };
      d.total += s.total;
      d.payments += s.payments;
      days.set(key, d);
      const payers = payersOf.get(s.currency) ?? new Set<string>();
      for (const p of s.payers ?? []) {
        payers.add(p);
        everyone.add(p);
      }
      payersOf.set(s.currency, payers);
    }
    const sortedDays = [...days.values()].sort((a, b) => a.day.localeCompare(b.day) || a.currency.localeCompare(b.currency));
    const currencies = new Map<string, { currency: string; total: number; payments: number; payingUsers: number }>();
    for (const d of sortedDays) {
      const c = currencies.get(d.currency) ?? {
        currency: d.currency,
        total: 0,
        payments: 0,
        payingUsers: payersOf.get(d.currency)?.size ?? 0,
      };
      c.total += d.total;
      c.payments += d.payments;
      currencies.set(d.currency, c);
    }
    return {
      currencies: [...currencies.values()].sort((a, b) => a.currency.localeCompare(b.currency)),
      payingUsers: everyone.size,
      days: sortedDays,
    };
  }

  private async anonymiseChunk(
    projectId: string,
    entries: ListEntry[],
    erasureId: string,
    pseudonym: string,
    before: Date,
  ): Promise<number> {
    const docs = await inParallel(entries, (e) => this.byId(projectId, e.value));
    const due = docs.filter((d): d is PaymentRecord => d !== null && d.email !== pseudonym && d.recordedAt <= before);
    if (due.length === 0) return 0;
    await this.models.lists.append(due.map((d) => ({ list: erasedList(projectId, erasureId), at: d.recordedAt, value: d.paymentId })));
    await inParallel(due, (d) =>
      this.models.Payment.updateOne({ _id: d._id }, { $set: { email: pseudonym, userId: null, description: null, metadata: {} } }).exec(),
    );
    return due.length;
  }

  /** Every entry of a short list (months, a month's shards), oldest first. */
  private async wholeList(list: string): Promise<ListEntry[]> {
    const entries: ListEntry[] = [];
    for (let beforeSeq: number | undefined; ;) {
      const page = await this.models.lists.page(list, { limit: PAGE, ...(beforeSeq !== undefined ? { beforeSeq } : {}) });
      entries.push(...page.entries);
      if (page.next === null) return entries.reverse();
      beforeSeq = page.next;
    }
  }

  /**
   * Adds a group of payments to this instance's shards. A payer is counted once per day and
   * currency across instances: the unique insert of their marker decides which shard lists them.
   * Then the payments are marked counted; a crash between the increment and the mark counts
   * those payments twice when they are redelivered (a window of milliseconds), and one between
   * the marker and the increment leaves a payer out of that day.
   */
  private async rollUp(payments: PaymentRecord[], mark = true): Promise<void> {
    const shards = new Map<string, { doc: Omit<RevenueShardDoc, 'payers'>; payers: string[] }>();
    const markers = new Map<string, { shard: string; hash: string }>();
    for (const p of payments) {
      const _id = `${p.projectId}:${p.day}:${p.currency}:${this.instance}`;
      const shard = shards.get(_id) ?? {
        doc: { _id, projectId: p.projectId, day: p.day, currency: p.currency, total: 0, payments: 0 },
        payers: [],
      };
      shard.doc.total += p.amount;
      shard.doc.payments += 1;
      shards.set(_id, shard);
      const hash = payerHash(p.projectId, p.uid ?? p.email);
      markers.set(`${p.projectId}:${p.day}:${p.currency}:${hash}`, { shard: _id, hash });
    }
    const markerIds = [...markers.keys()];
    const taken = await insertNew(
      this.models.RevenuePayer,
      markerIds.map((_id) => ({ _id })),
    );
    markerIds.forEach((id, i) => {
      if (!taken.has(i)) shards.get(markers.get(id)!.shard)!.payers.push(markers.get(id)!.hash);
    });
    await this.register([...shards.values()].map((s) => s.doc));
    await inParallel([...shards.values()], ({ doc, payers }) =>
      this.models.RevenueShard.updateOne(
        { _id: doc._id },
        {
          $inc: { total: doc.total, payments: doc.payments },
          $setOnInsert: { projectId: doc.projectId, day: doc.day, currency: doc.currency },
          ...(payers.length > 0 ? { $push: { payers: { $each: payers } } } : {}),
        },
        { upsert: true },
      ).exec(),
    );
    if (mark) await inParallel(payments, (p) => this.models.Payment.updateOne({ _id: p._id }, { $set: { rolledUp: true } }).exec());
  }

  /** Puts new shards on their month's list, and new months on the project's (once each, whichever instance comes first). */
  private async register(shards: Array<Pick<RevenueShardDoc, '_id' | 'projectId' | 'day' | 'currency'>>): Promise<void> {
    const groups = shards.flatMap((s) => {
      const month = s.day.slice(0, 7);
      const monthKey = `month:${s.projectId}:${month}`;
      const at = new Date();
      return [
        { key: monthKey, items: [{ list: monthsList(s.projectId), at, value: month }], known: 'maybe-seen' as const },
        {
          key: `shard:${s._id}`,
          items: [{ list: shardsList(s.projectId, month), at, value: `${s.day}|${s.currency}|${this.instance}` }],
          known: 'maybe-seen' as const,
        },
      ];
    });
    const fresh = groups.filter((g) => !this.registered.has(g.key));
    const unique = [...new Map(fresh.map((g) => [g.key, g])).values()];
    if (unique.length === 0) return;
    await this.models.lists.appendOnce(unique);
    for (const g of unique) this.registered.add(g.key);
  }
}
