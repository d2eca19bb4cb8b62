import { Schema, type Connection, type Model } from 'mongoose';
import { insertNew } from './duplicate-key';
import { inParallel } from './in-parallel';

/**
 * An entry is `<list>~<seq>`; a list's first live sequence number is kept in `<list>~tail`; an
 * append done once per key leaves `~once~<key>`. One collection holds all three kinds.
 */
interface SlotDoc {
  _id: string;
  /** Entry: when it happened (the order lists are read in). */
  t?: Date;
  /** Entry: what it points at (a message id, a delivery id). */
  v?: string;
  /** Tail mark: the list's first live sequence number. */
  s?: number;
}

export interface ListEntry {
  seq: number;
  at: Date;
  value: string;
}

export interface ListAppend {
  list: string;
  at: Date;
  value: string;
}

export interface ListPage {
  entries: ListEntry[];
  /** Pass as `beforeSeq` for the next (older) page; null when the list is exhausted. */
  next: number | null;
}

export interface PageOptions {
  limit: number;
  /** Only entries with a smaller sequence number (the previous page's `next`). */
  beforeSeq?: number;
  /** Only entries at or after this time. */
  from?: Date;
  /** Only entries at or before this time. */
  to?: Date;
}

/** Lists kept in the registry, for retention to find them all. */
const REGISTRY = '~lists';
/** Present in a collection whose lists have always kept their first slot when trimmed (see `anchored`). */
const ANCHORED_MARK = '~anchored';
/** How long a cached head is trusted before the list's tail is read again (retention may have moved it). */
const HEAD_TTL_MS = 60 * 60 * 1000;
const MAX_CACHED_HEADS = 50_000;
/**
 * Entries this process wrote or read, kept to serve the newest pages without a read each. An
 * entry never changes (its number is never used again, even after a trim), and one gone since
 * (trimmed here or by another instance) lies below the list's tail, which every page reads fresh.
 */
const MAX_CACHED_ENTRIES = 50_000;

/**
 * Many append-only lists (a project's messages, one recipient's messages, an endpoint's
 * deliveries), each entry addressable by `_id` alone, so that every read and write is a point
 * operation. On the embedded store (FerretDB on SQLite) only an exact `{_id}` filter is served
 * by an index; anything else reads the whole collection. On MongoDB the same point operations
 * use the `_id` index: no other index is needed.
 *
 * A list's entries are numbered densely from its tail; a new entry's number is claimed by its
 * unique insert, so instances appending to one list at once never share a number. The newest
 * number is found by probing (exponentially, then by bisection) from what this process knew, so
 * a page of the newest entries costs a few point reads beyond the entries themselves.
 */
export class SequenceLists {
  private readonly Slot;
  private readonly heads = new Map<string, { seq: number; at: number }>();
  /** The highest number this process has claimed in each list (its insert sent, landed or not). */
  private readonly claimed = new Map<string, number>();
  private readonly entries = new Map<string, ListEntry>();
  /**
   * A trim keeps a list's first slot, blanked. So in a collection where that has always held (one
   * empty when this code first met it), a free first slot means a list that never had an entry,
   * and a list this process has not seen is numbered from 1 with no read of its tail. A
   * collection written before holds lists trimmed without the rule: its tails are always read.
   */
  private anchored = false;
  /** Whether a list is kept in the registry, for `trimAll` to find; undefined: none is (see the constructor). */
  private readonly registered: ((list: string) => boolean) | undefined;

  /**
   * `registry`: which lists `trimAll` walks. `false` for a collection whose lists are trimmed one
   * by one, never all at once; a predicate for one whose per-person lists are trimmed through
   * what they point at (a list registers itself with a second document at its first entry: where
   * there is a list per person, a document more for each new person).
   */
  constructor(connection: Connection, collection: string, { registry = true }: { registry?: boolean | ((list: string) => boolean) } = {}) {
    this.registered = registry === false ? undefined : registry === true ? () => true : registry;
    const schema = new Schema<SlotDoc>({ _id: String, t: Date, v: String, s: Number }, { collection, versionKey: false });
    const name = `SequenceLists:${collection}`;
    // One model per collection and connection, however many views of it a process holds.
    this.Slot = (connection.models[name] as Model<SlotDoc> | undefined) ?? connection.model<SlotDoc>(name, schema);
  }

  async init(): Promise<void> {
    await this.Slot.init();
    if (await this.Slot.findById(ANCHORED_MARK, { _id: 1 }).lean().exec()) {
      this.anchored = true;
      return;
    }
    const any = await this.Slot.findOne({}, { _id: 1 }).lean<{ _id: string }>().exec();
    if (any && any._id !== ANCHORED_MARK) return;
    await insertNew(this.Slot, [{ _id: ANCHORED_MARK }]);
    this.anchored = true;
  }

  /**
   * Appends entries (to any number of lists) in one insert; returns their sequence numbers, in order.
   * A list's next number is guessed from the head this process remembers (or, for a list it has not
   * seen, 1 in an anchored collection and the list's tail in another) and claimed by the insert
   * alone: entries are dense from the tail to the head, so a free number at or above the tail can
   * only be the head's successor. A number taken shows the guess was stale, and that list's head
   * is then searched for.
   */
  async append(items: ListAppend[]): Promise<number[]> {
    const seqs = new Array<number>(items.length);
    const searched = new Set<string>();
    let pending = items.map((_, i) => i);
    for (let round = 0; pending.length > 0; round++) {
      if (round === 20) throw new Error('sequence lists: could not claim a number after 20 rounds');
      const lists = [...new Set(pending.map((i) => items[i]!.list))];
      const next = new Map<string, number>();
      const tails = new Map<string, number>();
      await inParallel(lists, async (list) => {
        const remembered = searched.has(list) ? undefined : this.rememberedHead(list);
        if (remembered === undefined && !searched.has(list) && this.anchored) {
          next.set(list, 1);
          tails.set(list, 1);
          return;
        }
        const tail = await this.tail(list);
        const head = searched.has(list) ? await this.head(list, tail) : remembered;
        // Another instance's retention may have emptied the list past a head remembered here: never number below its tail.
        next.set(list, Math.max(head === undefined ? tail : head + 1, tail));
        tails.set(list, tail);
      });
      const docs = pending.map((i) => {
        const item = items[i]!;
        const seq = next.get(item.list)!;
        next.set(item.list, seq + 1);
        seqs[i] = seq;
        this.claim(item.list, seq);
        return { _id: entryId(item.list, seq), t: item.at, v: item.value };
      });
      const taken = await insertNew(this.Slot, docs);
      for (let k = 0; k < pending.length; k++) {
        const item = items[pending[k]!]!;
        if (taken.has(k)) {
          this.heads.delete(item.list); // another instance got there first: find the head again
          searched.add(item.list);
        } else {
          const seq = seqs[pending[k]!]!;
          this.remember(item.list, seq);
          this.keep(item.list, { seq, at: item.at, value: item.value });
        }
      }
      // A list whose first live entry this was is new (or emptied by retention): retention must find it.
      const registered = this.registered;
      const fresh = registered
        ? pending.filter((i, k) => {
            const list = items[i]!.list;
            return !taken.has(k) && seqs[i] === tails.get(list) && list !== REGISTRY && registered(list);
          })
        : [];
      if (fresh.length > 0) await this.append(fresh.map((i) => ({ list: REGISTRY, at: items[i]!.at, value: items[i]!.list })));
      pending = pending.filter((_, k) => taken.has(k));
    }
    return seqs;
  }

  /**
   * Appends each group's entries unless that group's key was appended before (a redelivered
   * message). Groups known to be new skip the check; the others cost one point read each.
   */
  async appendOnce(groups: Array<{ key: string; items: ListAppend[]; known: 'new' | 'maybe-seen' }>): Promise<void> {
    const seen = new Set<string>();
    await inParallel(
      groups.filter((g) => g.known === 'maybe-seen'),
      async (g) => {
        if (await this.Slot.findById(onceId(g.key), { _id: 1 }).lean().exec()) seen.add(g.key);
      },
    );
    const todo = groups.filter((g) => !seen.has(g.key));
    if (todo.length === 0) return;
    await this.append(todo.flatMap((g) => g.items));
    // The mark goes in after the entries: a crash in between appends them again, never loses them.
    await insertNew(
      this.Slot,
      todo.map((g) => ({ _id: onceId(g.key) })),
    );
  }

  /** The newest entries first, `limit` at most, skipping numbers whose entry is gone. */
  async page(list: string, options: PageOptions): Promise<ListPage> {
    // Side by side: the head this process remembers is checked without the tail.
    // One read of the tail serves both: a head this process does not remember starts from it.
    const tailRead = this.tail(list);
    const [tail, top] = await Promise.all([
      tailRead,
      options.beforeSeq !== undefined ? options.beforeSeq - 1 : this.head(list, tailRead, { forRead: true }),
    ]);
    let hi = top;
    if (options.to && hi >= tail) hi = await this.lastAtOrBefore(list, options.to, tail, hi);
    const entries: ListEntry[] = [];
    while (hi >= tail && entries.length < options.limit) {
      const want = Math.min(options.limit - entries.length, hi - tail + 1);
      const seqs = Array.from({ length: want }, (_, k) => hi - k);
      const found = await inParallel(seqs, (seq) => this.entry(list, seq));
      for (const entry of found) {
        if (!entry) continue;
        if (options.from && entry.at < options.from) return { entries, next: null };
        entries.push(entry);
      }
      hi -= want;
    }
    return { entries, next: hi >= tail ? hi + 1 : null };
  }

  /**
   * The newest entries this process holds in memory, from the head it remembers down, without a
   * read: a guess at a first page (another instance may have appended since, retention may have
   * trimmed), which a caller may start reading what the entries point at with while `page`
   * checks it. Stops at the first number not held.
   */
  newestKnown(list: string, limit: number): ListEntry[] {
    const head = this.rememberedHead(list);
    const known: ListEntry[] = [];
    for (let seq = head ?? 0; seq >= 1 && known.length < limit; seq--) {
      const entry = this.entries.get(entryId(list, seq));
      if (!entry) break;
      known.push(entry);
    }
    return known;
  }

  /** The entry at one number, or null. */
  async entry(list: string, seq: number): Promise<ListEntry | null> {
    const known = this.entries.get(entryId(list, seq));
    if (known) return known;
    const doc = await this.Slot.findById(entryId(list, seq)).lean<SlotDoc>().exec();
    if (!doc?.t || doc.v === undefined) return null;
    return this.keep(list, { seq, at: doc.t, value: doc.v });
  }

  private keep(list: string, entry: ListEntry): ListEntry {
    if (this.entries.size >= MAX_CACHED_ENTRIES) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(entryId(list, entry.seq), entry);
    return entry;
  }

  /** The head this process remembers of the list, while it may still be trusted as a starting point. */
  private rememberedHead(list: string): number | undefined {
    const cached = this.heads.get(list);
    return cached && Date.now() - cached.at < HEAD_TTL_MS ? cached.seq : undefined;
  }

  /**
   * The highest number taken in the list (tail - 1 when it has no live entry); `tail` when the
   * caller has just read it. Found by probing up from the head this process remembers, a number
   * at or below it taken without a read. For a read (`forRead`), a probe that finds a number this
   * process claimed itself (an append of its own, landed during the search) ends the search there:
   * a process appending to a list all the time (a project's list during a burst) would otherwise
   * chase its own appends probe by probe. Another instance's entries are searched on,
   * exponentially then by bisection; one that took a number this process claimed at the same
   * moment is found by the next search (an append's search, which must find the head, never stops
   * early).
   */
  async head(list: string, tail?: number | Promise<number>, { forRead = false }: { forRead?: boolean } = {}): Promise<number> {
    const remembered = () => this.rememberedHead(list) ?? 0;
    let present = this.rememberedHead(list) ?? (await (tail ?? this.tail(list))) - 1;
    let ours = false;
    const taken = async (seq: number): Promise<boolean> => {
      if (seq <= remembered()) {
        present = Math.max(present, remembered());
        return true;
      }
      const found = await this.exists(list, seq);
      // A read that finds a number this process claimed: its own append, landed meanwhile.
      if (forRead && found && seq <= (this.claimed.get(list) ?? 0)) ours = true;
      present = Math.max(present, remembered(), found ? seq : present);
      return found;
    };
    let step = 1;
    let missing: number;
    for (;;) {
      const probe = present + step;
      if (!(await taken(probe))) {
        missing = probe;
        break;
      }
      if (ours) return this.remember(list, present);
      // Past what this process appended meanwhile a step at a time again; else twice as far.
      step = present > probe ? 1 : step * 2;
    }
    while (missing - present > 1 && !ours) {
      const mid = Math.floor((present + missing) / 2);
      if (!(await taken(mid))) missing = mid;
    }
    return this.remember(list, Math.max(present, remembered()));
  }

  /** The first live number of the list (1 for a list never trimmed). */
  async tail(list: string): Promise<number> {
    const mark = await this.Slot.findById(tailId(list)).lean<SlotDoc>().exec();
    return mark?.s ?? 1;
  }

  /**
   * Deletes the list's entries older than `cutoff` (all of them without one), oldest first, in
   * chunks of point deletes; the tail moves after each chunk, so an interrupted trim resumes
   * where it stopped. Returns the values of the entries removed (the caller may delete what
   * they point at).
   */
  async trim(list: string, cutoff?: Date, onChunk?: (values: string[]) => Promise<void>): Promise<number> {
    const tail = await this.tail(list);
    const head = await this.head(list);
    const end = cutoff ? (await this.lastAtOrBefore(list, new Date(cutoff.getTime() - 1), tail, head)) + 1 : head + 1;
    let removed = 0;
    for (let from = tail; from < end; from += 200) {
      const seqs = Array.from({ length: Math.min(200, end - from) }, (_, k) => from + k);
      const entries = await inParallel(seqs, (seq) => this.entry(list, seq));
      const values = entries.filter((e): e is ListEntry => e !== null).map((e) => e.value);
      if (onChunk && values.length > 0) await onChunk(values);
      await this.removeEntries(list, seqs);
      await this.Slot.replaceOne({ _id: tailId(list) }, { s: from + seqs.length }, { upsert: true }).exec();
      removed += values.length;
    }
    return removed;
  }

  /**
   * Retention: trims every list registered (each list registers itself with its first entry)
   * to `cutoff`; lists left out of the registry are the caller's to trim. A list with entries
   * left is registered again at the registry's head, so the registry is walked oldest first and
   * stays as long as the number of live lists.
   */
  async trimAll(cutoff: Date, onChunk?: (list: string, values: string[]) => Promise<void>): Promise<{ lists: number; removed: number }> {
    if (!this.registered) throw new Error('trimAll needs the registry: this collection keeps none');
    const stop = await this.head(REGISTRY);
    let lists = 0;
    let removed = 0;
    for (let seq = await this.tail(REGISTRY); seq <= stop; seq++) {
      const entry = await this.entry(REGISTRY, seq);
      if (entry) {
        removed += await this.trim(entry.value, cutoff, onChunk && ((values) => onChunk(entry.value, values)));
        lists++;
        if ((await this.head(entry.value)) >= (await this.tail(entry.value)))
          await this.append([{ list: REGISTRY, at: new Date(), value: entry.value }]);
      }
      await this.removeEntries(REGISTRY, [seq]);
      await this.Slot.replaceOne({ _id: tailId(REGISTRY) }, { s: seq + 1 }, { upsert: true }).exec();
    }
    return { lists, removed };
  }

  /** Deletes a list's entries, except its first slot, which is blanked (see `anchored`). */
  private async removeEntries(list: string, seqs: number[]): Promise<void> {
    for (const seq of seqs) this.entries.delete(entryId(list, seq));
    if (seqs.includes(1)) await this.Slot.replaceOne({ _id: entryId(list, 1) }, {}).exec();
    await this.deleteIds(seqs.filter((seq) => seq !== 1).map((seq) => entryId(list, seq)));
  }

  /** Deletes documents by exact `_id`, a bounded number at a time (never one statement naming them all). */
  async deleteIds(ids: string[]): Promise<void> {
    await inParallel(ids, (id) => this.Slot.deleteOne({ _id: id }).exec());
  }

  /** The largest number in [lo, hi] whose entry is at or before `time` (lo - 1 when none is); entries are in time order. */
  private async lastAtOrBefore(list: string, time: Date, lo: number, hi: number): Promise<number> {
    let below = lo - 1; // every entry up to here is at or before `time`
    let above = hi + 1; // every entry from here on is after it
    while (above - below > 1) {
      const mid = Math.floor((below + above) / 2);
      const entry = await this.nearest(list, mid, below);
      if (!entry || entry.at <= time)
        below = mid; // the numbers between the entry and mid are gone
      else above = entry.seq;
    }
    return below;
  }

  /** The entry at `seq`, or the closest one below it (down to `floor`, exclusive) when that number is gone. */
  private async nearest(list: string, seq: number, floor: number): Promise<ListEntry | null> {
    for (let s = seq; s > floor; s--) {
      const entry = await this.entry(list, s);
      if (entry) return entry;
    }
    return null;
  }

  private async exists(list: string, seq: number): Promise<boolean> {
    return (await this.Slot.findById(entryId(list, seq), { _id: 1 }).lean().exec()) !== null;
  }

  /** Notes a number this process claims: the head search knows an entry of its own when it meets one. */
  private claim(list: string, seq: number): void {
    if (seq <= (this.claimed.get(list) ?? 0)) return;
    if (this.claimed.size >= MAX_CACHED_HEADS) this.claimed.delete(this.claimed.keys().next().value!);
    this.claimed.delete(list);
    this.claimed.set(list, seq);
  }

  private remember(list: string, seq: number): number {
    if (this.heads.size >= MAX_CACHED_HEADS) this.heads.delete(this.heads.keys().next().value!);
    this.heads.delete(list);
    this.heads.set(list, { seq, at: Date.now() });
    return seq;
  }
}

const entryId = (list: string, seq: number): string => `${list}~${seq}`;
const tailId = (list: string): string => `${list}~tail`;
const onceId = (key: string): string => `~once~${key}`;
