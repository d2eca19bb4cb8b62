import { Schema, type Connection } from 'mongoose';
import { attemptIdOf, personListsOf } from '../domain/delivery-keys';
import { lastOf, statusOf, type DeliveryStatus } from '../domain/delivery-status';
import type { DeliveriesDeleted, DeliveryLog } from '../domain/ports';
import type { AttemptDoc, DeliveryDoc, DuePayload } from '../domain/records';
import { DueQueue, GroupCommit, growing, inParallel, insertNew, SequenceLists, type ListAppend, type ListEntry } from '@postbus/db';

/** The statuses with a list of their own (see the read models below). */
type ListedStatus = Exclude<DeliveryStatus, 'succeeded'>;

/** A delivery with its attempts, in attempt order. */
export interface DeliveryWithAttempts {
  delivery: DeliveryDoc;
  attempts: AttemptDoc[];
}

export interface DeliveryPageQuery {
  limit: number;
  /** The current status the deliveries must have (checked at read). */
  status?: DeliveryStatus;
  eventType?: string;
  /** Only entries older than this position of the list read (the previous page's `next`). */
  beforeSeq?: number;
}

export interface DeliveryPage {
  items: DeliveryWithAttempts[];
  /** The position to pass as `beforeSeq` for the next (older) page; null on the last one. */
  next: number | null;
}

// Every read and delete of these two collections is by `_id` (a delivery's id; `<deliveryId>:<attempt>`):
// no other index is needed, on MongoDB or on the embedded store. Both grow with traffic.
const deliverySchema = growing(
  new Schema<DeliveryDoc>(
    {
      _id: String,
      endpointId: String,
      clientId: String,
      eventId: String,
      eventType: String,
      payload: String,
      format: String,
      person: Schema.Types.Mixed,
      createdAt: Date,
    },
    { collection: 'deliveries', versionKey: false },
  ),
);

const attemptSchema = growing(
  new Schema<AttemptDoc>(
    {
      _id: String,
      deliveryId: String,
      endpointId: String,
      attempt: Number,
      at: Date,
      statusCode: { type: Number, default: null },
      latencyMs: Number,
      response: { type: String, default: null },
      error: { type: String, default: null },
      outcome: String,
      nextAttemptAt: { type: Date, default: null },
    },
    { collection: 'attempts', versionKey: false },
  ),
);

/*
 * The read models, lists of delivery ids in the order they were written (SequenceLists, every
 * entry addressed by `_id`):
 * - `ep:<endpoint>`: an endpoint's delivery log; retention deletes the deliveries through it;
 * - `ep:<endpoint>:type:<event type>`: the same, one event type;
 * - `ep:<endpoint>:status:<status>`: where a delivery went `failed` (its last attempt), or
 *   `pending` (its first attempt failed and it is being retried). A delivery moves on (a failed
 *   one retried by hand succeeds), so a page keeps an entry only while its delivery still has
 *   that status and that entry is the latest reason for it (its `at` is the attempt's).
 *   `succeeded` has no list: nearly every delivery succeeds, mostly at once, so it is read from
 *   the endpoint's (or the event type's) list, checking each delivery's status, which saves a
 *   document on every delivery; a page of an endpoint that mostly fails may come back short,
 *   with a cursor (the bound of MAX_LIST_PAGES);
 * - `person:<hash>`: every delivery whose body names one person of one project (by address, and
 *   by user_id), for an erasure. The name holds a hash of project and address, never the address.
 */
const endpointList = (endpointId: string): string => `ep:${endpointId}`;
const typeList = (endpointId: string, eventType: string): string => `ep:${endpointId}:type:${eventType}`;
const statusList = (endpointId: string, status: ListedStatus): string => `ep:${endpointId}:status:${status}`;
const ENDPOINT_LIST = /^ep:[^:]+$/;

/** The endpoint list entries a new delivery adds. */
const entriesOf = (d: DeliveryDoc): ListAppend[] =>
  [endpointList(d.endpointId), typeList(d.endpointId, d.eventType)].map((list) => ({ list, at: d.createdAt, value: d._id }));

/** The person list entries a new delivery adds. */
const personEntriesOf = (d: DeliveryDoc): ListAppend[] => personListsOf(d).map((list) => ({ list, at: d.createdAt, value: d._id }));

/** The status list entry a recorded attempt adds: where its delivery failed, or started being retried. */
function statusEntryOf(a: AttemptDoc): ListAppend | undefined {
  const status: ListedStatus | undefined =
    a.outcome === 'failed' ? 'failed' : a.outcome === 'retrying' && a.attempt === 1 ? 'pending' : undefined;
  return status && { list: statusList(a.endpointId, status), at: a.at, value: a.deliveryId };
}

/** The list a page of deliveries with these filters is read from (see the read models above). */
function listOf(endpointId: string, status: DeliveryStatus | undefined, eventType: string | undefined): string {
  if (status === 'pending' || status === 'failed') return statusList(endpointId, status);
  return eventType ? typeList(endpointId, eventType) : endpointList(endpointId);
}

/** List pages read for one page of filtered deliveries before an incomplete page is answered (with a cursor). */
const MAX_LIST_PAGES = 20;
/** Deliveries deleted per chunk (erasure, retention). */
const CHUNK = 200;

/** Deliveries, their attempts, the lists they are read through, and the queue of due attempts. */
export class DeliveryStore implements DeliveryLog {
  private readonly Delivery;
  private readonly Attempt;
  readonly due: DueQueue<DuePayload>;
  readonly lists: SequenceLists;
  /**
   * The person lists, in a collection of their own: retention walks every list of `lists` (a
   * few per endpoint) each run, while there is one person list per address; those are trimmed
   * when retention deletes their deliveries instead.
   */
  readonly people: SequenceLists;
  private readonly attemptWriter: GroupCommit<AttemptDoc>;
  /**
   * Entries of concurrent callers (event batches of several partitions, attempts) go in one
   * append at a time: appends racing for one list's next number would only retry each other.
   */
  private readonly listWriter: GroupCommit<ListAppend>;
  private readonly peopleWriter: GroupCommit<ListAppend>;

  constructor(connection: Connection) {
    this.Delivery = connection.model<DeliveryDoc>('Delivery', deliverySchema);
    this.Attempt = connection.model<AttemptDoc>('Attempt', attemptSchema);
    this.due = new DueQueue<DuePayload>(connection, 'due_attempts');
    this.lists = new SequenceLists(connection, 'delivery_lists');
    this.people = new SequenceLists(connection, 'delivery_people', { registry: false });
    this.listWriter = new GroupCommit(async (entries) => {
      await this.lists.append(entries);
    }, 5_000);
    this.peopleWriter = new GroupCommit(async (entries) => {
      await this.people.append(entries);
    }, 5_000);
    this.attemptWriter = new GroupCommit(async (attempts) => {
      // An attempt recorded already (same id) is the same attempt.
      await insertNew(this.Attempt, attempts);
      // After the attempts: a crash in between leaves a delivery out of a status filter (the
      // unfiltered log still shows it with its status), never in one it does not have. A repeat
      // adds a second entry, which reads skip (its time is not the stored attempt's).
      await this.list(attempts.map(statusEntryOf).filter((e): e is ListAppend => e !== undefined));
    });
  }

  async init(): Promise<void> {
    await Promise.all([this.Delivery.init(), this.Attempt.init(), this.due.init(), this.lists.init(), this.people.init()]);
  }

  /**
   * Stores new deliveries and adds them to their lists; returns those that need a first attempt:
   * the new ones, and ones stored by an earlier try at this event that were never attempted nor
   * scheduled (the process died before attempting them, perhaps before listing them: they are
   * listed again, and a page shows a delivery listed twice once). A delivery attempted already is
   * left alone: sending it again would repeat a finished delivery.
   */
  async add(deliveries: DeliveryDoc[]): Promise<DeliveryDoc[]> {
    if (deliveries.length === 0) return [];
    const existing = await insertNew(this.Delivery, deliveries);
    const firstAttempts = deliveries.filter((_, i) => !existing.has(i));
    const seen = deliveries.filter((_, i) => existing.has(i));
    await inParallel(seen, async (d) => {
      if (!(await this.attemptExists(d._id, 1)) && !(await this.due.pending(d._id))) firstAttempts.push(d);
    });
    await Promise.all([
      this.list(firstAttempts.flatMap(entriesOf)),
      ...firstAttempts.flatMap(personEntriesOf).map((e) => this.peopleWriter.add(e)),
    ]);
    return firstAttempts;
  }

  private async list(entries: ListAppend[]): Promise<void> {
    await Promise.all(entries.map((e) => this.listWriter.add(e)));
  }

  recordAttempt(attempt: AttemptDoc): Promise<void> {
    return this.attemptWriter.add(attempt);
  }

  async delivery(id: string): Promise<DeliveryDoc | null> {
    return this.Delivery.findById(id).lean<DeliveryDoc>().exec();
  }

  /** Some deliveries by id (point reads side by side); the missing ones are left out. */
  async deliveriesById(ids: string[]): Promise<Map<string, DeliveryDoc>> {
    const found = await inParallel(ids, (id) => this.delivery(id));
    return new Map(found.filter((d): d is DeliveryDoc => d !== null).map((d) => [d._id, d]));
  }

  /**
   * A delivery's attempts in attempt order, by point reads of `<id>:1`, `<id>:2`, … (numbers are
   * dense from 1), one after the other: a succeeded attempt is the last one (nothing retries a
   * success), so the usual delivery costs one read; a failed one may have been retried by hand,
   * so the next number is read too.
   */
  async attemptsOf(id: string): Promise<AttemptDoc[]> {
    const attempts: AttemptDoc[] = [];
    for (let n = 1; ; n++) {
      const attempt = await this.Attempt.findById(attemptIdOf(id, n)).lean<AttemptDoc>().exec();
      if (!attempt) return attempts;
      attempts.push(attempt);
      if (attempt.outcome === 'succeeded') return attempts;
    }
  }

  /** The attempts of some deliveries, each list in attempt order. */
  async attempts(ids: string[]): Promise<Map<string, AttemptDoc[]>> {
    const lists = await inParallel(ids, (id) => this.attemptsOf(id));
    return new Map(ids.map((id, i) => [id, lists[i]!]));
  }

  private async attemptExists(id: string, attempt: number): Promise<boolean> {
    return (await this.Attempt.findById(attemptIdOf(id, attempt), { _id: 1 }).lean().exec()) !== null;
  }

  /**
   * One page of an endpoint's deliveries, newest first, read from the list that fits the filters
   * (pending or failed, else event type, else all); what the list cannot tell (the current status,
   * the event type beside a status) is checked on each delivery. At most MAX_LIST_PAGES list pages
   * are read: a sparse match answers a short page with a cursor.
   */
  async page(endpointId: string, query: DeliveryPageQuery): Promise<DeliveryPage> {
    const { limit, status, eventType } = query;
    const list = listOf(endpointId, status, eventType);
    const items: DeliveryWithAttempts[] = [];
    const shown = new Set<string>();
    let beforeSeq = query.beforeSeq;
    for (let pages = 0; pages < MAX_LIST_PAGES; pages++) {
      const { entries, next } = await this.lists.page(list, {
        limit: limit - items.length,
        ...(beforeSeq !== undefined ? { beforeSeq } : {}),
      });
      const read = await inParallel(entries, (entry) => this.readEntry(entry));
      for (const [i, item] of read.entries()) {
        const entry = entries[i]!;
        if (!item || shown.has(item.delivery._id)) continue;
        if (eventType && item.delivery.eventType !== eventType) continue;
        if (status && statusOf(item.attempts) !== status) continue;
        if ((status === 'pending' || status === 'failed') && !isLatestReason(entry, item.attempts, status)) continue;
        shown.add(item.delivery._id);
        items.push(item);
      }
      if (next === null) return { items, next: null };
      beforeSeq = next;
      if (items.length >= limit) break;
    }
    return { items, next: beforeSeq ?? null };
  }

  private async readEntry(entry: ListEntry): Promise<DeliveryWithAttempts | null> {
    const [delivery, attempts] = await Promise.all([this.delivery(entry.value), this.attemptsOf(entry.value)]);
    return delivery && { delivery, attempts };
  }

  /**
   * Deletes deliveries with their attempts and due attempts (erasure and retention: the
   * exceptions to append-only), by point deletes; counts what went. Each delivery's attempts go
   * newest first and the delivery last, so a repeat after a crash still finds what is left.
   */
  async delete(ids: string[]): Promise<DeliveriesDeleted> {
    let deliveries = 0;
    let attempts = 0;
    for (let i = 0; i < ids.length; i += CHUNK) {
      const chunk = ids.slice(i, i + CHUNK);
      await Promise.all(chunk.map((id) => this.due.done(id)));
      const counts = await inParallel(chunk, async (id) => {
        let gone = 0;
        for (const a of (await this.attemptsOf(id)).reverse()) gone += (await this.Attempt.deleteOne({ _id: a._id }).exec()).deletedCount;
        const delivery = (await this.Delivery.deleteOne({ _id: id }).exec()).deletedCount;
        return { gone, delivery };
      });
      for (const c of counts) {
        attempts += c.gone;
        deliveries += c.delivery;
      }
    }
    return { deliveries, attempts };
  }

  /**
   * Erases a person's deliveries through their list. Those written up to `before` (when the
   * erasure ran) are theirs: deleted without being read, as the list is trimmed in resumable
   * chunks. Later ones are read and deleted only when `concerns` says they are about events from
   * before (an event of theirs that reached this service late); the rest belong to someone new
   * with the same address and stay listed. Counts what went.
   */
  async erasePerson(
    list: string,
    before: Date,
    concerns: (delivery: DeliveryDoc) => boolean,
    afterChunk?: () => Promise<void>,
    /** Deliveries this erasure deleted already (through the person's other list): skipped. */
    erased = new Set<string>(),
  ): Promise<DeliveriesDeleted> {
    const total = { deliveries: 0, attempts: 0 };
    const erase = async (ids: string[]) => {
      const todo = ids.filter((id) => !erased.has(id));
      const gone = await this.delete(todo);
      for (const id of todo) erased.add(id);
      total.deliveries += gone.deliveries;
      total.attempts += gone.attempts;
    };
    await this.people.trim(list, new Date(before.getTime() + 1), async (ids) => {
      await erase(ids);
      await afterChunk?.();
    });
    for (let page = await this.people.page(list, { limit: CHUNK }); page.entries.length > 0;) {
      const found = await this.deliveriesById(page.entries.map((e) => e.value));
      await erase([...found.values()].filter((d) => concerns(d)).map((d) => d._id));
      await afterChunk?.();
      if (page.next === null) break;
      page = await this.people.page(list, { limit: CHUNK, beforeSeq: page.next });
    }
    return total;
  }

  /**
   * Retention: deletes every delivery created before `cutoff`, with its attempts, through the
   * endpoints' lists (their type and status lists are trimmed alongside), in resumable chunks;
   * the person lists of the deliveries deleted are trimmed to the cutoff too.
   */
  async purgeOlderThan(cutoff: Date): Promise<DeliveriesDeleted> {
    const total = { deliveries: 0, attempts: 0 };
    await this.lists.trimAll(cutoff, async (list, ids) => {
      if (!ENDPOINT_LIST.test(list)) return;
      const found = await this.deliveriesById(ids);
      const people = new Set([...found.values()].flatMap((d) => personListsOf(d)));
      const gone = await this.delete(ids);
      total.deliveries += gone.deliveries;
      total.attempts += gone.attempts;
      // After the deliveries: a crash in between leaves entries that point at nothing, which
      // an erasure skips, and the next run's trim of another chunk of that person removes.
      for (const person of people) await this.people.trim(person, cutoff);
    });
    return total;
  }
}

/**
 * Whether a status list entry is the latest reason for its delivery's status: the entry was
 * written with the time of the attempt that put it there (the last one; for pending, the first).
 */
function isLatestReason(entry: ListEntry, attempts: AttemptDoc[], status: ListedStatus): boolean {
  const reason = status === 'pending' ? attempts.find((a) => a.attempt === 1) : lastOf(attempts);
  return reason !== undefined && reason.at.getTime() === entry.at.getTime();
}
