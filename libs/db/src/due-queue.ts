import { Schema, type Connection } from 'mongoose';
import { deleteByIds, findByIds } from './by-ids';
import { insertNew } from './duplicate-key';
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

const claimKey = (item: DueDoc): string => `${item._id}@${item.dueAt.getTime()}`;

/**
 * FerretDB 1.24 (SQLite) never answers an `update` command of 100 statements or more, and stops
 * answering anything else on that database (measured: 99 go in about 300 ms, 100 hang): a bulk
 * update is sent in commands well under that.
 */
const MOVES_PER_UPDATE = 50;

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
 * so is one whose claimer died between its claim and that move (see releaseExpiredClaims). A poll
 * claims its whole batch at once (one unordered insert of the keys, bulk updates of the winners
 * of MOVES_PER_UPDATE each), so hundreds of items due in the same second cost a few round trips, not hundreds.
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
    const claimSchema = new Schema<ClaimDoc>(
      { _id: String, at: Date, until: Date },
      { collection: `${collection}_claims`, versionKey: false },
    );
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

  /** The item's payload while it is scheduled (or claimed and not yet done), else null. */
  async entry(id: string): Promise<P | null> {
    const item = await this.Due.findById(id).lean<DueDoc>().exec();
    return item ? (item.payload as P) : null;
  }

  /**
   * Claims up to `limit` due items for `leaseMs`, oldest first, in a bounded number of round trips
   * whatever the batch: one read of what is due, one unordered insert of all the claims, and bulk
   * updates (one per MOVES_PER_UPDATE) moving the winners' due times (beside it, for items someone else claimed a lease
   * or more ago, point reads of their claims and one bulk update releasing the expired ones).
   */
  async claimDue(limit: number, leaseMs: number): Promise<Array<DueItem<P>>> {
    const now = new Date();
    const due = await this.Due.find({ dueAt: { $lte: now } })
      .sort({ dueAt: 1 })
      .limit(limit)
      .lean<DueDoc[]>()
      .exec();
    const until = new Date(now.getTime() + leaseMs);
    const taken = await insertNew(
      this.Claim,
      due.map((item) => ({ _id: claimKey(item), at: now, until })),
    );
    const won = due.filter((_, i) => !taken.has(i));
    const lost = due.filter((_, i) => taken.has(i));
    // A lost item is another instance's, or was: a released one is claimed afresh at the next call.
    await Promise.all([this.moveDueTimes(won.map((item) => ({ item, to: until }))), this.releaseExpiredClaims(lost, now, leaseMs)]);
    if (now.getTime() - this.lastPurge > PURGE_EVERY_MS) {
      this.lastPurge = now.getTime();
      await this.Claim.deleteMany({ at: { $lt: new Date(now.getTime() - CLAIM_RETENTION_MS) } }).exec();
    }
    return won.map((item) => ({ id: item._id, payload: item.payload as P }));
  }

  /** Moves each item's due time, if it is still the one read, in bulk updates of at most MOVES_PER_UPDATE. */
  private async moveDueTimes(moves: Array<{ item: DueDoc; to: Date }>): Promise<void> {
    for (let start = 0; start < moves.length; start += MOVES_PER_UPDATE) {
      await this.Due.bulkWrite(
        moves.slice(start, start + MOVES_PER_UPDATE).map(({ item, to }) => ({
          updateOne: { filter: { _id: item._id, dueAt: item.dueAt }, update: { $set: { dueAt: to } } },
        })),
        { ordered: false },
      );
    }
  }

  /**
   * Items still due at a time someone claimed: their claimer is between storing the claim and
   * moving the due time, or it died there (a SIGKILL), and then the claim's key would stay taken
   * and the item stuck until the claim is purged, an hour later. Once such a claim's lease has run
   * out, the item is moved to where its claimer would have moved it: the same value whoever
   * writes it (several instances, or the claimer itself, late), so the update needs no atomicity,
   * and the next claim, under the new due time's key, is again one unique insert.
   */
  private async releaseExpiredClaims(lost: DueDoc[], now: Date, leaseMs: number): Promise<void> {
    // A claim is made at or after its due time, so none has expired before a lease past it: most contention ends here, without a read.
    const overdue = lost.filter((item) => now.getTime() >= item.dueAt.getTime() + leaseMs);
    if (overdue.length === 0) return;
    // Point reads: the claims collection keeps an hour of claims, which a filter on many ids would scan.
    const claims = new Map((await findByIds(this.Claim, overdue.map(claimKey))).map((claim) => [claim._id, claim]));
    const moves = overdue.flatMap((item) => {
      const claim = claims.get(claimKey(item));
      if (!claim) return [];
      const until = claim.until ?? new Date(claim.at.getTime() + leaseMs);
      return until.getTime() > now.getTime() ? [] : [{ item, to: until }];
    });
    await this.moveDueTimes(moves);
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
