import { Schema, type Connection } from 'mongoose';
import { deleteByIds } from './by-ids';
import { insertNew, isDuplicateKeyError } from './duplicate-key';
import { GroupCommit } from './group-commit';

interface DueDoc {
  _id: string;
  dueAt: Date;
  payload: Record<string, unknown>;
}

/** Who took an item at one due time: `_id` is `<item id>@<due time>`, unique, so only one insert wins. */
interface ClaimDoc {
  _id: string;
  at: Date;
  /** The end of the claimer's lease: where it moves the item's due time (absent on claims stored before it was kept). */
  until?: Date;
}

const CLAIM_RETENTION_MS = 60 * 60 * 1000;
const PURGE_EVERY_MS = 5 * 60 * 1000;

export interface DueItem<P> {
  id: string;
  payload: P;
}

/**
 * Work due at a time (a retry, a delivery attempt), in a small collection of its own so that its
 * updates stay cheap on FerretDB. An item is claimed by inserting `<id>@<due time>` into a claims
 * collection: the unique `_id` makes exactly one instance win, even on FerretDB, whose
 * conditional updates are not atomic between connections. The winner moves the due time a lease
 * ahead, so an item whose claimer died is claimed again (under a new key) once the lease runs out;
 * so is one whose claimer died between its claim and that move (see releaseExpiredClaim).
 */
export class DueQueue<P extends Record<string, unknown>> {
  private readonly Due;
  private readonly Claim;
  private lastPurge = 0;
  private readonly removals: GroupCommit<string>;

  constructor(connection: Connection, collection: string) {
    const schema = new Schema<DueDoc>(
      { _id: String, dueAt: Date, payload: Schema.Types.Mixed },
      { collection, versionKey: false, minimize: false },
    );
    schema.index({ dueAt: 1 });
    this.Due = connection.model<DueDoc>(`Due:${collection}`, schema);
    const claimSchema = new Schema<ClaimDoc>({ _id: String, at: Date }, { collection: `${collection}_claims`, versionKey: false });
    this.Claim = connection.model<ClaimDoc>(`Claim:${collection}`, claimSchema);
    this.removals = new GroupCommit(async (ids) => {
      await deleteByIds(this.Due, ids);
    });
  }

  async init(): Promise<void> {
    await Promise.all([this.Due.init(), this.Claim.init()]);
  }

  async schedule(id: string, dueAt: Date, payload: P): Promise<void> {
    await this.Due.replaceOne({ _id: id }, { dueAt, payload }, { upsert: true }).exec();
  }

  /** Schedules many new items in one insert; ids already scheduled are left as they are. */
  async scheduleMany(items: Array<{ id: string; dueAt: Date; payload: P }>): Promise<void> {
    await insertNew(
      this.Due,
      items.map((i) => ({ _id: i.id, dueAt: i.dueAt, payload: i.payload })),
    );
  }

  async pending(id: string): Promise<boolean> {
    return (await this.Due.exists({ _id: id }).exec()) !== null;
  }

  /** Claims up to `limit` due items for `leaseMs`, oldest first. */
  async claimDue(limit: number, leaseMs: number): Promise<Array<DueItem<P>>> {
    const now = new Date();
    const due = await this.Due.find({ dueAt: { $lte: now } })
      .sort({ dueAt: 1 })
      .limit(limit)
      .lean<DueDoc[]>()
      .exec();
    const claimed: Array<DueItem<P>> = [];
    for (const item of due) if (await this.claim(item, now, leaseMs)) claimed.push({ id: item._id, payload: item.payload as P });
    if (now.getTime() - this.lastPurge > PURGE_EVERY_MS) {
      this.lastPurge = now.getTime();
      await this.Claim.deleteMany({ at: { $lt: new Date(now.getTime() - CLAIM_RETENTION_MS) } }).exec();
    }
    return claimed;
  }

  /** Takes one item at its due time for a lease, or leaves it to the instance that has it. */
  private async claim(item: DueDoc, now: Date, leaseMs: number): Promise<boolean> {
    const key = `${item._id}@${item.dueAt.getTime()}`;
    const until = new Date(now.getTime() + leaseMs);
    try {
      await this.Claim.create({ _id: key, at: now, until });
    } catch (error) {
      if (!isDuplicateKeyError(error)) throw error;
      await this.releaseExpiredClaim(item, key, now, leaseMs);
      return false; // another instance has it, or had it: a released item is claimed afresh at the next call
    }
    await this.Due.updateOne({ _id: item._id, dueAt: item.dueAt }, { $set: { dueAt: until } }).exec();
    return true;
  }

  /**
   * An item still due at a time someone claimed: its claimer is between storing the claim and
   * moving the due time, or it died there (a SIGKILL), and then the claim's key would stay taken
   * and the item stuck until the claim is purged, an hour later. Once that claim's lease has run
   * out, the item is moved to where its claimer would have moved it: the same value whoever
   * writes it (several instances, or the claimer itself, late), so the update needs no atomicity,
   * and the next claim, under the new due time's key, is again one unique insert.
   */
  private async releaseExpiredClaim(item: DueDoc, key: string, now: Date, leaseMs: number): Promise<void> {
    // A claim is made at or after its due time, so none has expired before a lease past it: most contention ends here, without a read.
    if (now.getTime() < item.dueAt.getTime() + leaseMs) return;
    const claim = await this.Claim.findById(key).lean<ClaimDoc>().exec();
    if (!claim) return;
    const until = claim.until ?? new Date(claim.at.getTime() + leaseMs);
    if (until.getTime() > now.getTime()) return;
    await this.Due.updateOne({ _id: item._id, dueAt: item.dueAt }, { $set: { dueAt: until } }).exec();
  }

  /** When the earliest item is due, or undefined when there is none. */
  async nextDueAt(): Promise<Date | undefined> {
    const first = await this.Due.findOne().sort({ dueAt: 1 }).lean<DueDoc>().exec();
    return first?.dueAt;
  }

  /** The item is finished; removals from concurrent callers share one deleteMany. */
  done(id: string): Promise<void> {
    return this.removals.add(id);
  }
}
