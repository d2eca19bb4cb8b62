import { randomBytes } from 'node:crypto';
import { Schema, type Connection } from 'mongoose';
import type { Suppression, SuppressionReason } from '@postbus/contracts';
import { deleteByIds, findByIds, GroupCommit, inParallel, insertNew, SequenceLists } from '@postbus/db';
import { ERASURE } from '../domain/suppression-reasons';

export interface SuppressionDoc {
  _id: string;
  projectId: string;
  email: string | null;
  userId?: string | null;
  reason: string;
  at: Date;
  /** The message whose bounce or complaint caused it. */
  messageId?: string;
  /** Its entry in the project's list (see listEntryKey). */
  entry?: string;
}

/** A suppression the list shows: it names an address and has an entry in its project's list. */
type ListedDoc = SuppressionDoc & { email: string; entry: string };

/** An address to suppress for every email, and why. */
export interface BlockRequest {
  projectId: string;
  email: string;
  reason: SuppressionReason;
  at: Date;
  /** The message whose bounce or complaint caused it. */
  messageId?: string;
}

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
    entry: { type: String, default: undefined },
  },
  { collection: 'suppressions', versionKey: false },
);

/**
 * That an address may have a suppression: `_id` is `<project>:<hash of the address>` (see
 * markerKey). Written before any suppression keyed by the address, and kept when they are lifted
 * or erased (it names no address), so a missing marker proves the address has none.
 */
interface MarkerDoc {
  _id: string;
}

const markerSchema = new Schema<MarkerDoc>({ _id: String }, { collection: 'suppressed_addresses', versionKey: false });

/** Marks that every suppression stored before the markers were kept has one (see `init`). */
const MARKERS_BACKFILLED = '#backfilled';

const softBounceSchema = new Schema<SoftBounceDoc>(
  { _id: String, count: Number, at: Date },
  { collection: 'soft_bounces', versionKey: false },
);

/** Who a message goes to: its address, and the client's user id when the trigger named one. */
export interface Recipient {
  projectId: string;
  email: string;
  userId?: string | null;
}

/** Who an erasure is about; either may be unknown. */
export interface ErasureTarget {
  projectId: string;
  email: string | null;
  userId: string | null;
}

// Erasure suppressions live under keys of their own: an address unsubscribed before (whose
// suppression keeps its first reason) still gets the erasure one, and the erasure removes both.
const keyOf = (projectId: string, email: string) => `${projectId}:${email}`;
const erasureEmailKey = (projectId: string, email: string) => `${projectId}:erase:email:${email}`;
const erasureUserKey = (projectId: string, userId: string) => `${projectId}:erase:uid:${userId}`;
// What the recipient's mail system said (a hard bounce, soft bounces, a complaint) has a key of its
// own too: an address unsubscribed before still gets it, and it holds even for emails sent to the
// unsubscribed (a receipt to a dead or complaining address is still not sent).
const blockKey = (projectId: string, email: string) => `${projectId}:block:${email}`;
const softBounceKey = (projectId: string, email: string) => `${projectId}:soft:${email}`;
// A list entry names its suppression by a random token, whose own document holds the address: an
// erasure deletes that document with the suppression, and the list keeps no address.
const listEntryKey = (projectId: string, token: string) => `${projectId}:entry:${token}`;
// What an erased address's mail system reported outlives the erasure as a suppression keyed by a
// hash of the address (the erasure audit key's HMAC): no address is kept, and a trigger to it is
// still suppressed, since the address is still dead, or still complains, whoever has it now.
const erasedKey = (projectId: string, addressHash: string) => `${projectId}:erased:${addressHash}`;
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

/** A suppression as the list shows it; `email`: the address asked about (an erased address's suppression keeps none). */
const viewOf = (doc: SuppressionDoc, email = doc.email ?? ''): Suppression => ({
  email,
  reason: doc.reason as SuppressionReason,
  created_at: doc.at.toISOString(),
  message_id: doc.messageId ?? null,
});

/**
 * Addresses and users of a project that get no more mail (unsubscribed, pending erasure, bounced,
 * complaining, suppressed by the client). Each suppression the client sees is also an entry of
 * its project's list (a `SequenceLists` list, read newest first by point reads); an entry whose
 * suppression was lifted, or replaced by a newer one, is skipped on reading.
 */
export class Suppressions {
  private readonly Suppression;

  private readonly SoftBounce;

  private readonly Marker;

  private readonly lists: SequenceLists;

  /** `hashAddress`: the HMAC of an address under the erasure audit key (see erasedKey). */
  constructor(
    connection: Connection,
    private readonly hashAddress: (email: string) => string,
  ) {
    this.Suppression = connection.model<SuppressionDoc>('Suppression', suppressionSchema);
    this.SoftBounce = connection.model<SoftBounceDoc>('SoftBounce', softBounceSchema);
    this.Marker = connection.model<MarkerDoc>('SuppressedAddress', markerSchema);
    this.lists = new SequenceLists(connection, 'suppression_lists', { registry: false });
  }

  async init(): Promise<void> {
    await Promise.all([this.Suppression.init(), this.SoftBounce.init(), this.Marker.init(), this.lists.init()]);
    await this.backfillMarkers();
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
    await insertNew(
      this.Marker,
      [...new Set(markers)].map((_id) => ({ _id })),
    );
    await insertNew(this.Marker, [{ _id: MARKERS_BACKFILLED }]);
  }

  /** Marks addresses as possibly suppressed, before a suppression keyed by them is stored. */
  private async mark(addresses: Array<{ projectId: string; email: string }>): Promise<void> {
    if (addresses.length === 0) return;
    await insertNew(
      this.Marker,
      [...new Set(addresses.map(({ projectId, email }) => markerKey(projectId, this.hashAddress(email))))].map((_id) => ({ _id })),
    );
  }

  /**
   * Suppresses addresses for every email because of what their mail systems reported (a hard
   * bounce, too many soft bounces, a complaint) or because the client says so (`manual`), together.
   * The first reason stays: returns the suppression each address has, new or not.
   */
  async blockAll(requests: BlockRequest[]): Promise<SuppressionDoc[]> {
    const docs = requests.map(({ projectId, email, reason, at, messageId }) => ({
      _id: blockKey(projectId, email),
      projectId,
      email,
      reason,
      at,
      entry: newEntryToken(),
      ...(messageId ? { messageId } : {}),
    }));
    await this.mark(docs);
    const taken = await insertNew(this.Suppression, docs);
    await this.listed(docs.filter((_, i) => !taken.has(i)));
    return Promise.all(docs.map((doc, i) => (taken.has(i) ? this.stored(doc) : Promise.resolve(doc))));
  }

  /** `blockAll` for one address. */
  async block(projectId: string, email: string, reason: SuppressionReason, at: Date, messageId?: string): Promise<SuppressionDoc> {
    const [suppression] = await this.blockAll([{ projectId, email, reason, at, ...(messageId ? { messageId } : {}) }]);
    return suppression!;
  }

  /** Inserts a listed suppression unless its address has one of that kind; returns the one it has. */
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
    return existing;
  }

  /** What `block` put on an address, or what outlived its erasure; null when neither. */
  async blocking(projectId: string, email: string): Promise<SuppressionDoc | null> {
    const [block, erased] = await Promise.all([
      this.Suppression.findById(blockKey(projectId, email)).lean<SuppressionDoc>().exec(),
      this.Suppression.findById(erasedKey(projectId, this.hashAddress(email)))
        .lean<SuppressionDoc>()
        .exec(),
    ]);
    return block ?? (erased ? { ...erased, email } : null);
  }

  /**
   * Lifts what `block` put on an address, what outlived its erasure, and its soft-bounce count: a
   * later trigger sends again. An unsubscribe stays. True when `block` had put one. `known`: what
   * `blocking` answered for the address just before, which saves reading it again.
   */
  async unblock(projectId: string, email: string, known?: SuppressionDoc | null): Promise<boolean> {
    const found = known === undefined ? await this.Suppression.findById(blockKey(projectId, email)).lean<SuppressionDoc>().exec() : known;
    const doc = found?._id === blockKey(projectId, email) ? found : null;
    await Promise.all([
      deleteByIds(this.Suppression, [
        blockKey(projectId, email),
        erasedKey(projectId, this.hashAddress(email)),
        ...(doc?.entry ? [listEntryKey(projectId, doc.entry)] : []),
      ]),
      this.SoftBounce.deleteOne({ _id: softBounceKey(projectId, email) }).exec(),
    ]);
    return doc !== null;
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

  /** What the client sees of an address's suppression: what blocks it, else its unsubscribe; null when it gets mail. */
  async current(projectId: string, email: string): Promise<Suppression | null> {
    const [blocking, other] = await Promise.all([
      this.blocking(projectId, email),
      this.Suppression.findById(keyOf(projectId, email)).lean<SuppressionDoc>().exec(),
    ]);
    const doc = blocking ?? other;
    return doc ? viewOf(doc, email) : null;
  }

  /** One page of the project's suppressions, newest first (a page may hold fewer than `limit` with a next cursor). */
  async page(projectId: string, query: SuppressionQuery): Promise<{ data: Suppression[]; next: number | null }> {
    const wanted = (s: Suppression | null): s is Suppression => s !== null && (query.reason === undefined || s.reason === query.reason);
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
      const found = await this.current(projectId, named.email);
      // The entry of the suppression the address has now, not of one lifted since.
      return wanted(found) && found.created_at === entry.at.toISOString() ? found : null;
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
    // The list entries' address documents go with the suppressions they name (the entries, which hold no address, stay).
    const listedDocs = await findByIds(
      this.Suppression,
      emails.flatMap((e) => [keyOf(projectId, e), blockKey(projectId, e)]),
    );
    const entries = listedDocs.flatMap((d) => (d.entry && d.at <= before ? [listEntryKey(projectId, d.entry)] : []));
    const outliving = listedDocs.filter(
      (d) => d.email && d._id === blockKey(projectId, d.email) && OUTLIVING_ERASURE.has(d.reason) && d.at <= before,
    );
    if (outliving.length > 0) {
      await this.mark(outliving.map((d) => ({ projectId, email: d.email! })));
      await insertNew(
        this.Suppression,
        outliving.map((d) => ({
          _id: erasedKey(projectId, this.hashAddress(d.email!)),
          projectId,
          email: null,
          reason: d.reason,
          at: d.at,
        })),
      );
    }
    await deleteByIds(this.Suppression, entries);
    const keys = [
      ...emails.flatMap((e) => [keyOf(projectId, e), blockKey(projectId, e), erasureEmailKey(projectId, e)]),
      ...(userId !== null ? [erasureUserKey(projectId, userId)] : []),
    ];
    if (keys.length === 0) return 0;
    // Only those from before the erasure ran: a later one is the choice of whoever has the address now.
    return deleteByIds(this.Suppression, keys, { at: { $lte: before } });
  }

  /** Why this recipient gets no mail, or undefined; asked together with concurrent callers in one read. */
  readonly reasonFor = (recipient: Recipient): Promise<string | undefined> => this.lookups.add(recipient);

  private readonly lookups = new GroupCommit<Recipient, string | undefined>((recipients) => this.reasons(recipients));

  /**
   * Why each recipient gets no mail (undefined when it gets mail), in order, by point reads only: its
   * address's marker and the erasure of its user id, then, for an address with a marker, the keys it
   * may have. A pending erasure of the address or of the user id wins over any other reason, and
   * what the address's mail system reported wins over an unsubscribe.
   */
  async reasons(recipients: Recipient[]): Promise<Array<string | undefined>> {
    if (recipients.length === 0) return [];
    const keys = recipients.map(({ projectId, email, userId }) => {
      const hash = this.hashAddress(email);
      return {
        marker: markerKey(projectId, hash),
        userErasure: userId ? erasureUserKey(projectId, userId) : undefined,
        erasure: erasureEmailKey(projectId, email),
        block: blockKey(projectId, email),
        erased: erasedKey(projectId, hash),
        other: keyOf(projectId, email),
      };
    });
    const [markers, userErasures] = await Promise.all([
      findByIds(
        this.Marker,
        keys.map((k) => k.marker),
      ),
      findByIds(
        this.Suppression,
        keys.flatMap((k) => (k.userErasure ? [k.userErasure] : [])),
      ),
    ]);
    const marked = new Set(markers.map((m) => m._id));
    const details = await findByIds(
      this.Suppression,
      keys.flatMap((k) => (marked.has(k.marker) ? [k.erasure, k.block, k.erased, k.other] : [])),
    );
    const reasons = new Map([...userErasures, ...details].map((d) => [d._id, d.reason]));
    return keys.map((k) =>
      reasons.has(k.erasure) || (k.userErasure !== undefined && reasons.has(k.userErasure))
        ? ERASURE
        : (reasons.get(k.block) ?? reasons.get(k.erased) ?? reasons.get(k.other)),
    );
  }
}
