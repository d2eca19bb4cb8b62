import { randomBytes } from 'node:crypto';
import { Schema, type Connection } from 'mongoose';
import type { Suppression, SuppressionReason } from '@postbus/contracts';
import { deleteByIds, findByIds, GroupCommit, inParallel, insertNew, SequenceLists } from '@postbus/db';
import type { MarkerWatch } from '../domain/marker-watch';
import type { ErasureSuppressions, ErasureTarget } from '../domain/ports/erasures';
import type {
  Blocked,
  BlockRequest,
  CauseDoc,
  Recipient,
  SoftBounceCounts,
  SuppressionDoc,
  SuppressionLookup,
  SuppressionRecords,
} from '../domain/ports/suppressions';
import { accumulated, ERASURE, isLiftable, strongest, suppressionView } from '../domain/suppression-reasons';

/** A suppression the list shows: it names an address and has an entry in its project's list. */
type ListedDoc = SuppressionDoc & { email: string; entry: string };

/** How many messages to an address soft-bounced: `_id` is `<project>:soft:<address>`. */
interface SoftBounceDoc {
  _id: string;
  count: number;
  at: Date;
}

const suppressionSchema = new Schema<SuppressionDoc>(
  {
    _id: String,
    projectId: String,
    email: { type: String, default: null },
    userId: { type: String, default: undefined },
    reason: String,
    at: Date,
    messageId: { type: String, default: undefined },
    reasons: {
      type: [new Schema<CauseDoc>({ reason: String, at: Date, messageId: { type: String, default: undefined } }, { _id: false })],
      default: undefined,
    },
    entry: { type: String, default: undefined },
  },
  { collection: 'suppressions', versionKey: false },
);

/** A suppression's reasons: those it accumulated, or the one it was stored with. */
const causesOf = (doc: SuppressionDoc): CauseDoc[] =>
  doc.reasons?.length ? doc.reasons : [{ reason: doc.reason, at: doc.at, ...(doc.messageId ? { messageId: doc.messageId } : {}) }];

const isComplaint = (cause: CauseDoc): boolean => !isLiftable(cause.reason);

/**
 * That an address may have a suppression: `_id` is `<project>:<hash of the address>` (see
 * markerKey). Written before any suppression keyed by the address, and kept when they are lifted
 * or erased (it names no address), so a missing marker proves the address has none. A user id's
 * erasure is marked likewise, by the hash of the user id (see userIdHash).
 */
interface MarkerDoc {
  _id: string;
}

const markerSchema = new Schema<MarkerDoc>({ _id: String }, { collection: 'suppressed_addresses', versionKey: false });

/** Marks that every suppression stored before the markers were kept has one (see `init`). */
const MARKERS_BACKFILLED = '#backfilled';
/** Likewise for the erasures of user ids, marked since (see `init`). */
const USER_ID_MARKERS_BACKFILLED = '#backfilled-user-ids';

const softBounceSchema = new Schema<SoftBounceDoc>(
  { _id: String, count: Number, at: Date },
  { collection: 'soft_bounces', versionKey: false },
);

// Erasure suppressions live under keys of their own: an address unsubscribed before (whose
// suppression keeps its first reason) still gets the erasure one, and the erasure removes both.
const keyOf = (projectId: string, email: string) => `${projectId}:${email}`;
const erasureEmailKey = (projectId: string, email: string) => `${projectId}:erase:email:${email}`;
const erasureUserKey = (projectId: string, userId: string) => `${projectId}:erase:uid:${userId}`;
// What the recipient's mail system said (a hard bounce, soft bounces, a complaint) has a key of its
// own too: an address unsubscribed before still gets it, and it holds even for emails sent to the
// unsubscribed (a receipt to a dead or complaining address is still not sent).
const blockKey = (projectId: string, email: string) => `${projectId}:block:${email}`;
// A complaint is also stored under a key of its own, inserted before it is added to the address's
// block and never updated: whatever happens to the block (a lift that deletes it while the
// complaint is being added to it), the complaint is still there to be put back (see `keptComplaint`).
const complaintKey = (projectId: string, email: string) => `${projectId}:complaint:${email}`;
const softBounceKey = (projectId: string, email: string) => `${projectId}:soft:${email}`;
// A list entry names its suppression by a random token, whose own document holds the address: an
// erasure deletes that document with the suppression, and the list keeps no address.
const listEntryKey = (projectId: string, token: string) => `${projectId}:entry:${token}`;
// What an erased address's mail system reported outlives the erasure as a suppression keyed by a
// hash of the address (the erasure audit key's HMAC): no address is kept, and a trigger to it is
// still suppressed, since the address is still dead, or still complains, whoever has it now.
const erasedKey = (projectId: string, addressHash: string) => `${projectId}:erased:${addressHash}`;
// When an erasure of an address, or of a user id, ran (its `before`), keyed by a hash of it: a
// trigger accepted before then but handled after (the mailer lagging behind its topic) is for the
// erased person, whose erasure suppression is gone, and is suppressed too. A later one is for
// whoever has the address now. It names no one, and outlives the erasure's second pass (a trigger
// may still be on its way then); one per erasure, like the erasure service's audit.
const erasedBeforeKey = (projectId: string, addressHash: string) => `${projectId}:erased-before:${addressHash}`;
const userErasedBeforeKey = (projectId: string, userIdHash: string) => `${projectId}:erased-before:uid:${userIdHash}`;
// The trigger path's first read: one point read a recipient, which the embedded store serves from
// its index however many suppressions there are, where a `$in` read of the keys below would scan
// them all. Only an address with a marker has the keys above read (see `reasons`).
const markerKey = (projectId: string, addressHash: string) => `${projectId}:${addressHash}`;
const OUTLIVING_ERASURE: ReadonlySet<string> = new Set<SuppressionReason>(['hard_bounce', 'soft_bounce_limit', 'complaint']);
const newEntryToken = () => randomBytes(9).toString('base64url');

/** The erasure suppressions of a person: one per identifier known. */
const erasureDocs = ({ projectId, email, userId }: ErasureTarget, at: Date): SuppressionDoc[] => [
  ...(email !== null ? [{ _id: erasureEmailKey(projectId, email), projectId, email, reason: ERASURE, at }] : []),
  ...(userId !== null ? [{ _id: erasureUserKey(projectId, userId), projectId, email: null, userId, reason: ERASURE, at }] : []),
];

/** A page of a project's suppression list: the query as the client gave it. */
export interface SuppressionQuery {
  email?: string;
  reason?: SuppressionReason;
  limit: number;
  /** Where the previous page ended: the list position of its next cursor. */
  cursor?: number;
}

/**
 * Addresses and users of a project that get no more mail (unsubscribed, pending erasure, bounced,
 * complaining, suppressed by the client). An address has up to two suppressions the client sees
 * (what `block` put on it, and its unsubscribe), each an entry of its project's list (a
 * `SequenceLists` list, read newest first by point reads); the address is shown once, with every
 * reason of both, under the entry of the older one. An entry whose suppression was lifted, or is
 * not the one its address is shown under, is skipped on reading.
 */
export class Suppressions implements SuppressionLookup, SuppressionRecords, SoftBounceCounts, ErasureSuppressions {
  private readonly Suppression;

  private readonly SoftBounce;

  private readonly Marker;

  private readonly lists: SequenceLists;

  /** `hashAddress`: the HMAC of an address under the erasure audit key (see erasedKey). */
  constructor(
    connection: Connection,
    private readonly hashAddress: (email: string) => string,
    /** What lets a recipient's check skip the read of a marker surely not stored (see MarkerWatch); none: every marker is read. */
    private readonly markers?: MarkerWatch,
  ) {
    this.Suppression = connection.model<SuppressionDoc>('Suppression', suppressionSchema);
    this.SoftBounce = connection.model<SoftBounceDoc>('SoftBounce', softBounceSchema);
    this.Marker = connection.model<MarkerDoc>('SuppressedAddress', markerSchema);
    this.lists = new SequenceLists(connection, 'suppression_lists', { registry: false });
  }

  async init(): Promise<void> {
    await Promise.all([this.Suppression.init(), this.SoftBounce.init(), this.Marker.init(), this.lists.init()]);
    await this.backfillMarkers();
    await this.backfillUserIdMarkers();
  }

  /** Marks the user ids of erasures pending since before their markers were kept, once (see backfillMarkers). */
  private async backfillUserIdMarkers(): Promise<void> {
    if (await this.Marker.exists({ _id: USER_ID_MARKERS_BACKFILLED }).exec()) return;
    const docs = await this.Suppression.find({}, { projectId: 1, userId: 1 })
      .lean<Array<Pick<SuppressionDoc, '_id' | 'projectId' | 'userId'>>>()
      .exec();
    await this.markUserIds(
      docs.flatMap(({ _id, projectId, userId }) => (userId && _id === erasureUserKey(projectId, userId) ? [{ projectId, userId }] : [])),
    );
    await insertNew(this.Marker, [{ _id: USER_ID_MARKERS_BACKFILLED }]);
  }

  /** Marks user ids as possibly erased, before their erasure suppression or the record of it is stored. */
  private async markUserIds(users: Array<{ projectId: string; userId: string }>): Promise<void> {
    await this.putMarkers(users.map(({ projectId, userId }) => markerKey(projectId, this.userIdHash(userId))));
  }

  private async putMarkers(keys: string[]): Promise<void> {
    if (keys.length === 0) return;
    const unique = [...new Set(keys)];
    await insertNew(
      this.Marker,
      unique.map((_id) => ({ _id })),
    );
    // A failed announcement fails the suppression: its command is retried, stores nothing twice and announces again.
    await this.markers?.stored(unique);
  }

  /** Every stored marker key, in groups (a scan of the markers, for a mailer's filter as it starts). */
  async eachMarkerKey(each: (keys: string[]) => void, groupSize = 1_000): Promise<void> {
    let group: string[] = [];
    for await (const doc of this.Marker.find({}, { _id: 1 }).lean<MarkerDoc>().cursor()) {
      if (doc._id.startsWith('#')) continue; // the backfills' own records
      group.push(doc._id);
      if (group.length >= groupSize) {
        each(group);
        group = [];
      }
    }
    if (group.length > 0) each(group);
  }

  /**
   * Marks the addresses of suppressions stored before markers were kept, once: a scan of every
   * suppression, at the first start of a mailer that keeps them. Every mailer of a deployment must
   * keep them before it is relied on: one that does not would store a suppression the others miss.
   */
  private async backfillMarkers(): Promise<void> {
    if (await this.Marker.exists({ _id: MARKERS_BACKFILLED }).exec()) return;
    const docs = await this.Suppression.find({}, { projectId: 1, email: 1 })
      .lean<Array<Pick<SuppressionDoc, '_id' | 'projectId' | 'email'>>>()
      .exec();
    const markers = docs.flatMap(({ _id, projectId, email }) => {
      if (email) return [markerKey(projectId, this.hashAddress(email))];
      const erased = `${projectId}:erased:`;
      return _id.startsWith(erased) ? [markerKey(projectId, _id.slice(erased.length))] : [];
    });
    await this.putMarkers(markers);
    await insertNew(this.Marker, [{ _id: MARKERS_BACKFILLED }]);
  }

  /** Marks addresses as possibly suppressed, before a suppression keyed by them is stored. */
  private async mark(addresses: Array<{ projectId: string; email: string }>): Promise<void> {
    await this.putMarkers(addresses.map(({ projectId, email }) => markerKey(projectId, this.hashAddress(email))));
  }

  /**
   * Suppresses addresses for every email because of what their mail systems reported (a hard
   * bounce, too many soft bounces, a complaint) or because the client says so (`manual`), together.
   * An address keeps every reason it is given (the first of each kind stays): returns the
   * suppression each address has, new or not, with its first reason and its entry as they were.
   */
  async blockAll(requests: BlockRequest[]): Promise<SuppressionDoc[]> {
    const docs = requests.map(({ projectId, email, reason, at, messageId }): ListedDoc => {
      const cause = { reason, at, ...(messageId ? { messageId } : {}) };
      return { _id: blockKey(projectId, email), projectId, email, ...cause, reasons: [cause], entry: newEntryToken() };
    });
    await this.mark(docs);
    // A complaint's own record first: stored before the complaint is added to the block, it is
    // there to be put back should a lift delete the block meanwhile.
    await insertNew(
      this.Suppression,
      docs.filter((doc) => !isLiftable(doc.reason)).map((doc) => this.complaintRecord(doc)),
    );
    const taken = await insertNew(this.Suppression, docs);
    await this.listed(docs.filter((_, i) => !taken.has(i)));
    // An address found twice among those taken has its reasons added one after the other.
    const byAddress = new Map<string, number[]>();
    for (const i of taken) byAddress.set(docs[i]!._id, [...(byAddress.get(docs[i]!._id) ?? []), i]);
    const stored = new Map<number, SuppressionDoc>();
    await inParallel([...byAddress.values()], async (positions) => {
      for (const i of positions) stored.set(i, await this.stored(docs[i]!));
    });
    return docs.map((doc, i) => stored.get(i) ?? doc);
  }

  /** `blockAll` for one address. */
  async block(projectId: string, email: string, reason: SuppressionReason, at: Date, messageId?: string): Promise<SuppressionDoc> {
    const [suppression] = await this.blockAll([{ projectId, email, reason, at, ...(messageId ? { messageId } : {}) }]);
    return suppression!;
  }

  /** The record a complaint keeps of its own (see complaintKey): it names no list entry. */
  private complaintRecord({ projectId, email, at, messageId }: ListedDoc): SuppressionDoc {
    return { _id: complaintKey(projectId, email), projectId, email, reason: 'complaint', at, ...(messageId ? { messageId } : {}) };
  }

  /**
   * Inserts a listed suppression unless its address has one of that kind; otherwise adds the
   * suppression's reason to the one it has, unless it has that reason. Returns the suppression as
   * stored.
   */
  private async stored(doc: ListedDoc): Promise<SuppressionDoc> {
    if ((await insertNew(this.Suppression, [doc])).size === 0) {
      await this.listed([doc]);
      return doc;
    }
    const existing = await this.Suppression.findById(doc._id).lean<SuppressionDoc>().exec();
    if (!existing) return this.stored(doc); // lifted in between
    // A process that died between the two writes left it out of the list: listed now.
    if (existing.entry && !(await this.Suppression.exists({ _id: listEntryKey(doc.projectId, existing.entry) }).exec()))
      await this.listed([{ ...doc, at: existing.at, entry: existing.entry }]);
    const had = causesOf(existing);
    if (had.some((cause) => cause.reason === doc.reason)) return existing;
    const cause: CauseDoc = { reason: doc.reason, at: doc.at, ...(doc.messageId ? { messageId: doc.messageId } : {}) };
    // By `_id` alone (the embedded store scans for any other filter). On MongoDB a `$push` is one
    // atomic change; the embedded store reads and rewrites the document, so two reasons added to
    // one address at the same instant may keep one (a complaint is kept apart: see complaintKey).
    const added = await this.Suppression.updateOne(
      { _id: doc._id },
      existing.reasons?.length ? { $push: { reasons: cause } } : { $set: { reasons: [...had, cause] } },
    ).exec();
    if (added.matchedCount === 0) return this.stored(doc); // lifted in between
    return { ...existing, reasons: [...had, cause] };
  }

  /**
   * What `block` put on an address, else what outlived its erasure, with every reason the address
   * is blocked for (a complaint's own record included: a complaint being added to the block
   * counts); null when nothing blocks it.
   */
  async blocking(projectId: string, email: string): Promise<Blocked | null> {
    const [block, erased, complaint] = await Promise.all([
      this.Suppression.findById(blockKey(projectId, email)).lean<SuppressionDoc>().exec(),
      this.Suppression.findById(erasedKey(projectId, this.hashAddress(email)))
        .lean<SuppressionDoc>()
        .exec(),
      this.Suppression.findById(complaintKey(projectId, email)).lean<SuppressionDoc>().exec(),
    ]);
    const suppression = block ?? (erased ? { ...erased, email } : complaint);
    if (!suppression) return null;
    const causes = [block, erased, complaint].flatMap((doc) => (doc ? causesOf(doc) : []));
    return { suppression, causes };
  }

  /**
   * Lifts what `block` put on an address, what outlived its erasure, and its soft-bounce count: a
   * later trigger sends again. An unsubscribe stays, and so does a complaint: an address with one
   * has nothing lifted. `known`: what `blocking` answered for the address just before, which saves
   * reading it again. `lifted`: whether `block` had put one; `kept`: the address's complaint when
   * one came after `known` was read, put back (see keptComplaint).
   */
  async unblock(projectId: string, email: string, known?: Blocked | null): Promise<{ lifted: boolean; kept: SuppressionDoc | null }> {
    const found = known === undefined ? await this.blocking(projectId, email) : known;
    if (found?.causes.some(isComplaint)) return { lifted: false, kept: await this.keptComplaint(projectId, email) };
    const doc = found?.suppression._id === blockKey(projectId, email) ? found.suppression : null;
    await Promise.all([
      deleteByIds(this.Suppression, [
        blockKey(projectId, email),
        erasedKey(projectId, this.hashAddress(email)),
        ...(doc?.entry ? [listEntryKey(projectId, doc.entry)] : []),
      ]),
      this.SoftBounce.deleteOne({ _id: softBounceKey(projectId, email) }).exec(),
    ]);
    // Without transactions (and the embedded store reads before it writes even a conditional
    // update), a complaint stored since `found` was read may have been added to the block just
    // deleted: its own record says so, and it is put back.
    return { lifted: doc !== null, kept: await this.keptComplaint(projectId, email) };
  }

  /**
   * Makes sure an address's complaint blocks it: when its own record exists and the address's block
   * lacks it (deleted by a lift that raced it, or its process died in between), adds it back, as a
   * new suppression when the block is gone. Returns the block so changed, or null when nothing was
   * missing.
   */
  async keptComplaint(projectId: string, email: string): Promise<SuppressionDoc | null> {
    const [complaint, block] = await Promise.all([
      this.Suppression.findById(complaintKey(projectId, email)).lean<SuppressionDoc>().exec(),
      this.Suppression.findById(blockKey(projectId, email)).lean<SuppressionDoc>().exec(),
    ]);
    if (!complaint || (block && causesOf(block).some(isComplaint))) return null;
    const cause: CauseDoc = { reason: 'complaint', at: complaint.at, ...(complaint.messageId ? { messageId: complaint.messageId } : {}) };
    return this.stored({ _id: blockKey(projectId, email), projectId, email, ...cause, reasons: [cause], entry: newEntryToken() });
  }

  /** Adds new suppressions to their projects' lists: the entries' own documents first, so that every entry read finds its address. */
  private async listed(docs: ListedDoc[]): Promise<void> {
    if (docs.length === 0) return;
    await insertNew(
      this.Suppression,
      docs.map(({ projectId, email, at, entry }) => ({ _id: listEntryKey(projectId, entry), projectId, email, reason: 'entry', at })),
    );
    await this.lists.append(docs.map(({ projectId, at, entry }) => ({ list: projectId, at, value: entry })));
  }

  /** An address's unsubscribe, or null. */
  async unsubscription(projectId: string, email: string): Promise<SuppressionDoc | null> {
    return this.Suppression.findById(keyOf(projectId, email)).lean<SuppressionDoc>().exec();
  }

  /** Lifts an address's unsubscribe (the client asserts the recipient's consent); what `block` put on it stays. */
  async resubscribed(projectId: string, email: string): Promise<void> {
    const doc = await this.unsubscription(projectId, email);
    if (!doc) return;
    await deleteByIds(this.Suppression, [keyOf(projectId, email), ...(doc.entry ? [listEntryKey(projectId, doc.entry)] : [])]);
  }

  /** What the client sees of an address's suppression (see `shown`); null when it gets mail. */
  async current(projectId: string, email: string): Promise<Suppression | null> {
    return (await this.shown(projectId, email))?.view ?? null;
  }

  /**
   * An address's suppression as the client sees it: every reason of what blocks it (its block, what
   * outlived its erasure, a complaint's own record) and of its unsubscribe; `entry`: the list entry
   * it is shown under, its older listed suppression's.
   */
  private async shown(projectId: string, email: string): Promise<{ view: Suppression; entry: string | undefined } | null> {
    const [blocked, unsubscribe] = await Promise.all([this.blocking(projectId, email), this.unsubscription(projectId, email)]);
    const view = suppressionView(email, [...(blocked?.causes ?? []), ...(unsubscribe ? causesOf(unsubscribe) : [])]);
    if (!view) return null;
    const listed = [blocked?.suppression, unsubscribe].filter((doc): doc is SuppressionDoc => doc?.entry !== undefined);
    const oldest = listed.reduce<SuppressionDoc | undefined>(
      (first, doc) => (first === undefined || doc.at < first.at ? doc : first),
      undefined,
    );
    return { view, entry: oldest?.entry };
  }

  /**
   * One page of the project's suppressions, newest first (a page may hold fewer than `limit` with a
   * next cursor); `reason` keeps the addresses that have that reason among theirs.
   */
  async page(projectId: string, query: SuppressionQuery): Promise<{ data: Suppression[]; next: number | null }> {
    const wanted = (s: Suppression | null): s is Suppression =>
      s !== null && (query.reason === undefined || s.reasons.some((cause) => cause.reason === query.reason));
    if (query.email !== undefined) {
      const found = await this.current(projectId, query.email);
      return { data: wanted(found) ? [found] : [], next: null };
    }
    const page = await this.lists.page(projectId, {
      limit: query.limit,
      ...(query.cursor !== undefined ? { beforeSeq: query.cursor } : {}),
    });
    const shown = await inParallel(page.entries, async (entry) => {
      const named = await this.Suppression.findById(listEntryKey(projectId, entry.value)).lean<SuppressionDoc>().exec();
      if (!named?.email) return null; // lifted, or erased
      const found = await this.shown(projectId, named.email);
      // Under the entry it is shown under, not one of a suppression lifted since, nor its newer one.
      return found !== null && wanted(found.view) && found.entry === entry.value ? found.view : null;
    });
    return { data: shown.filter((s): s is Suppression => s !== null), next: page.next };
  }

  /** Forgets an address's soft bounces: a message reached it since (they count in a row). */
  async clearSoftBounces(projectId: string, email: string): Promise<void> {
    await this.SoftBounce.deleteOne({ _id: softBounceKey(projectId, email) }).exec();
  }

  /** Counts one more soft-bounced message to an address (the caller counts each message once); returns the count. */
  async countSoftBounce(projectId: string, email: string, at: Date): Promise<number> {
    const doc = await this.SoftBounce.findOneAndUpdate(
      { _id: softBounceKey(projectId, email) },
      { $inc: { count: 1 }, $set: { at } },
      { upsert: true, returnDocument: 'after' },
    )
      .lean<SoftBounceDoc>()
      .exec();
    return doc?.count ?? 1;
  }

  /** Suppresses an unsubscribed address (for emails not sent to the unsubscribed); returns its suppression, new or not (the first stays). */
  async unsubscribed(projectId: string, email: string, at: Date): Promise<SuppressionDoc> {
    await this.mark([{ projectId, email }]);
    return this.stored({ _id: keyOf(projectId, email), projectId, email, reason: 'unsubscribed', at, entry: newEntryToken() });
  }

  /** Suppresses a person whose erasure is scheduled, by address and by user id (a replay adds nothing). */
  async addErasure(target: ErasureTarget, at: Date): Promise<void> {
    if (target.email !== null) await this.mark([{ projectId: target.projectId, email: target.email }]);
    if (target.userId !== null) await this.markUserIds([{ projectId: target.projectId, userId: target.userId }]);
    await insertNew(this.Suppression, erasureDocs(target, at));
  }

  /** Removes the erasure suppressions of a person (undoing an `addErasure` that lost a race with the erasure). */
  async removeErasure(target: ErasureTarget): Promise<void> {
    const keys = erasureDocs(target, new Date(0)).map((d) => d._id);
    await deleteByIds(this.Suppression, keys);
  }

  /**
   * Removes the suppressions of these addresses and of this user id: after an erasure the address
   * belongs to no one known, and a new trigger reaches whoever it is now, unless its mail system
   * said it takes no mail or complains (kept by hash, see erasedKey).
   */
  async removeAll(projectId: string, emails: string[], userId: string | null, before: Date): Promise<number> {
    await deleteByIds(
      this.SoftBounce,
      emails.map((e) => softBounceKey(projectId, e)),
    );
    const found = await findByIds(
      this.Suppression,
      emails.flatMap((e) => [keyOf(projectId, e), blockKey(projectId, e), complaintKey(projectId, e)]),
    );
    // Only those from before the erasure ran go (see below).
    const gone = found.filter((d) => d.at <= before);
    // The list entries' address documents go with the suppressions they name (the entries, which hold no address, stay).
    const entries = gone.flatMap((d) => (d.entry ? [listEntryKey(projectId, d.entry)] : []));
    // What an address's mail system reported (its block's bounces and complaint, a complaint's own record) outlives it.
    const outliving = new Map<string, CauseDoc[]>();
    for (const d of gone) {
      if (!d.email || d._id === keyOf(projectId, d.email)) continue;
      const reported = causesOf(d).flatMap(({ reason, at }) => (OUTLIVING_ERASURE.has(reason) ? [{ reason, at }] : []));
      if (reported.length > 0) outliving.set(d.email, [...(outliving.get(d.email) ?? []), ...reported]);
    }
    if (outliving.size > 0) {
      await this.mark([...outliving.keys()].map((email) => ({ projectId, email })));
      await insertNew(
        this.Suppression,
        [...outliving].map(([email, reported]) => {
          const causes = accumulated(reported);
          return {
            _id: erasedKey(projectId, this.hashAddress(email)),
            projectId,
            email: null,
            reason: causes[0]!.reason,
            at: causes[0]!.at,
            reasons: causes,
          };
        }),
      );
    }
    await deleteByIds(this.Suppression, entries);
    await this.recordErased(projectId, emails, userId, before);
    const keys = [
      ...emails.flatMap((e) => [keyOf(projectId, e), blockKey(projectId, e), complaintKey(projectId, e), erasureEmailKey(projectId, e)]),
      ...(userId !== null ? [erasureUserKey(projectId, userId)] : []),
    ];
    if (keys.length === 0) return 0;
    // Only those from before the erasure ran: a later one is the choice of whoever has the address now.
    return deleteByIds(this.Suppression, keys, { at: { $lte: before } });
  }

  /**
   * Records when an erasure of these addresses and of this user id ran (see erasedBeforeKey), before
   * their erasure suppressions go; a later pass of the same erasure keeps the latest time.
   */
  private async recordErased(projectId: string, emails: string[], userId: string | null, before: Date): Promise<void> {
    await this.mark(emails.map((email) => ({ projectId, email })));
    if (userId !== null) await this.markUserIds([{ projectId, userId }]);
    const keys = [
      ...emails.map((email) => erasedBeforeKey(projectId, this.hashAddress(email))),
      ...(userId !== null ? [userErasedBeforeKey(projectId, this.userIdHash(userId))] : []),
    ];
    await inParallel(keys, (_id) =>
      this.Suppression.updateOne(
        { _id },
        { $max: { at: before }, $setOnInsert: { projectId, email: null, reason: ERASURE } },
        { upsert: true },
      ).exec(),
    );
  }

  /** A user id's hash under the erasure audit key, apart from any address's (no address has a space). */
  private userIdHash(userId: string): string {
    return this.hashAddress(`user id ${userId}`);
  }

  /** Why this recipient gets no mail, or undefined; asked together with concurrent callers in one read. */
  readonly reasonFor = (recipient: Recipient): Promise<string | undefined> => this.lookups.add(recipient);

  private readonly lookups = new GroupCommit<Recipient, string | undefined>((recipients) => this.reasons(recipients));

  /**
   * Why each recipient gets no mail (undefined when it gets mail), in order, by point reads only: the
   * markers of its address and of its user id, then the keys a marked one may have. A pending erasure of the address or of the user id wins over any other reason, and so
   * does one that ran after the recipient's message was accepted (see erasedBeforeKey); then the
   * strongest reason the address is blocked for (see `strongest`), then an unsubscribe.
   */
  async reasons(recipients: Recipient[]): Promise<Array<string | undefined>> {
    if (recipients.length === 0) return [];
    const keys = recipients.map(({ projectId, email, userId }) => {
      const hash = this.hashAddress(email);
      const userHash = userId ? this.userIdHash(userId) : undefined;
      return {
        marker: markerKey(projectId, hash),
        userMarker: userHash !== undefined ? markerKey(projectId, userHash) : undefined,
        userErasure: userId ? erasureUserKey(projectId, userId) : undefined,
        userErased: userHash !== undefined ? userErasedBeforeKey(projectId, userHash) : undefined,
        erasure: erasureEmailKey(projectId, email),
        erasedBefore: erasedBeforeKey(projectId, hash),
        block: blockKey(projectId, email),
        erased: erasedKey(projectId, hash),
        other: keyOf(projectId, email),
      };
    });
    // A marker this instance's filter surely does not hold is not read (see MarkerWatch).
    const mayBeMarked = (key: string) => this.markers?.mayBeMarked(key) ?? true;
    const markers = await findByIds(
      this.Marker,
      keys.flatMap((k) => [k.marker, ...(k.userMarker !== undefined ? [k.userMarker] : [])]).filter(mayBeMarked),
    );
    const marked = new Set(markers.map((m) => m._id));
    const details = await findByIds(
      this.Suppression,
      keys.flatMap((k) => [
        ...(marked.has(k.marker) ? [k.erasure, k.block, k.erased, k.other, k.erasedBefore] : []),
        ...(k.userMarker !== undefined && marked.has(k.userMarker) ? [k.userErasure!, k.userErased!] : []),
      ]),
    );
    const found = new Map(details.map((d) => [d._id, d]));
    return keys.map((k, i) => {
      const acceptedAt = recipients[i]!.acceptedAt;
      const erasedSince = (id: string | undefined) => {
        const ran = id !== undefined ? found.get(id)?.at : undefined;
        return ran !== undefined && acceptedAt !== undefined && acceptedAt <= ran;
      };
      if (found.has(k.erasure) || (k.userErasure !== undefined && found.has(k.userErasure))) return ERASURE;
      if (erasedSince(k.erasedBefore) || erasedSince(k.userErased)) return ERASURE;
      const blocking = [k.block, k.erased].flatMap((id) => {
        const doc = found.get(id);
        return doc ? causesOf(doc) : [];
      });
      return (strongest(blocking) ?? found.get(k.other))?.reason;
    });
  }
}
