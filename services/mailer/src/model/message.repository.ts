import { Schema, type Connection } from 'mongoose';
import type { Message } from '@postbus/contracts';
import { GroupCommit, growing, inParallel, insertNew, isDuplicateKeyError } from '@postbus/db';
import { deliveryEventId, engagementEventId } from '../domain/message-ids';
import type { ContentDoc, EventDoc, MessageDoc, SummaryDoc } from '../domain/message-records';
import { isTerminal } from '../domain/message-status';
import { currentView } from '../domain/message-view';
import type { MessageRecords } from '../domain/ports/messages';

// Kept for src/seed-data.ts, which imports them from here.
export { deliveryEventId, engagementEventId } from '../domain/message-ids';
export type { EventDoc, MessageDoc, SummaryDoc } from '../domain/message-records';

// All three grow with traffic: on a request path only exact-_id queries are allowed (see MessageStore).
const messageSchema = growing(
  new Schema<MessageDoc>(
    {
      _id: String,
      projectId: String,
      emailId: String,
      emailKey: String,
      templateId: String,
      templateVersion: Number,
      email: String,
      userId: { type: String, default: null },
      user: Schema.Types.Mixed,
      data: Schema.Types.Mixed,
      acceptedAt: Date,
      createdAt: Date,
    },
    { collection: 'messages', versionKey: false, minimize: false },
  ),
);

const eventSchema = growing(
  new Schema<EventDoc>(
    {
      _id: String,
      messageId: String,
      projectId: String,
      event: String,
      sequence: Number,
      at: Date,
      smtp: { type: Schema.Types.Mixed, default: undefined },
      reason: { type: String, default: undefined },
      url: { type: String, default: undefined },
      attempt: { type: Number, default: undefined },
      subject: { type: String, default: undefined },
      key: { type: String, default: undefined },
      count: { type: Number, default: undefined },
    },
    { collection: 'message_events', versionKey: false },
  ),
);

const contentSchema = growing(
  new Schema<ContentDoc>(
    { _id: String, subject: String, html: String, text: String, truncated: Boolean },
    { collection: 'message_contents', versionKey: false },
  ),
);

const summarySchema = growing(
  new Schema<SummaryDoc>(
    { _id: String, projectId: String, view: Schema.Types.Mixed },
    { collection: 'message_summaries', versionKey: false },
  ),
);

/**
 * A bounded map whose entries expire: a hot window of what never changes (a message as accepted,
 * a finished delivery history), so that a page read again costs fewer reads. A restart starts it
 * empty; the expiry bounds how long another instance's erasure may leave a copy here.
 */
class HotWindow<V> {
  private readonly entries = new Map<string, { value: V; until: number }>();

  constructor(
    private readonly max: number,
    private readonly ttlMs: number,
  ) {}

  get(key: string): V | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (entry.until < Date.now()) {
      this.entries.delete(key);
      return undefined;
    }
    return entry.value;
  }

  set(key: string, value: V): void {
    if (this.entries.size >= this.max) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(key, { value, until: Date.now() + this.ttlMs });
  }

  delete(key: string): void {
    this.entries.delete(key);
  }
}

/** A message's delivery events among `events`, from its first attempt to a terminal one; undefined unless all are there. */
function finishedHistory(messageId: string, events: EventDoc[]): EventDoc[] | undefined {
  const byId = new Map(events.map((e) => [e._id, e]));
  const history: EventDoc[] = [];
  for (let n = 1; ; n++) {
    const event = byId.get(deliveryEventId(messageId, n));
    if (!event) return undefined;
    history.push(event);
    if (isTerminal(event.event)) return history;
  }
}

/** A driver filter on a string `_id` (the driver's types expect an ObjectId). */
const byId = (id: string): Record<string, unknown> => ({ _id: id });

const HOT_ENTRIES = 20_000;
const HOT_TTL_MS = 30_000;
/**
 * Summaries this process kept, for the reads that follow at once (the newest page of a list while
 * a backlog drains): a few seconds' worth. Another instance may replace one meanwhile (an open, a
 * bounce it recorded): its read here shows the kept one for this long at most.
 */
const HOT_SUMMARIES = 4_000;
const HOT_SUMMARY_TTL_MS = 5_000;

/**
 * Messages and their timelines: both append-only, every read and delete by exact `_id`. A
 * message's timeline is found by probing ids it can have, never by a find on `messageId`:
 * delivery events are `<id>:2`, `<id>:3`… (one per attempt, none after a terminal one) and
 * engagement entries `<id>:e1`, `<id>:e2`… (dense: each claimed by unique insert). On FerretDB
 * only these are served by an index; on MongoDB the `_id` index serves them all, so neither
 * collection needs another index.
 */
export class MessageStore implements MessageRecords {
  private readonly Message;
  private readonly Event;
  private readonly Content;
  private readonly Summary;
  private readonly hotMessages = new HotWindow<MessageDoc>(HOT_ENTRIES, HOT_TTL_MS);
  /** Delivery events of messages whose delivery is over (nothing is added after a terminal event). */
  private readonly hotDeliveries = new HotWindow<EventDoc[]>(HOT_ENTRIES, HOT_TTL_MS);
  /**
   * Messages this process stored and has not yet summarized: their summary read would find
   * nothing, so a read goes straight to the message and its timeline (one round trip, not two).
   * A guess that is wrong only costs reads: the view from the timeline is the one a summary holds.
   */
  private readonly unsummarized = new HotWindow<true>(HOT_ENTRIES, HOT_TTL_MS);
  /**
   * Messages this process stored to deliver now, before it has written any event of theirs: their
   * timeline is empty without a read. Nothing but that first attempt's outcome comes first (an
   * open needs the mail sent; a retry or a cancel needs an outcome or a send_at), so a read during
   * a burst's drain, whose newest messages are these, costs no probe of their timelines.
   */
  private readonly unattempted = new HotWindow<true>(HOT_ENTRIES, HOT_TTL_MS);
  private readonly hotSummaries = new HotWindow<SummaryDoc>(HOT_SUMMARIES, HOT_SUMMARY_TTL_MS);
  /**
   * Counts the writes here that may change a summary after it is kept (a replace, a delete): the
   * summaries a keep inserted are remembered only when none came while it was under way, so a
   * remembered summary is never older than what this process wrote after it.
   */
  private summaryChanges = 0;

  constructor(connection: Connection) {
    this.Message = connection.model<MessageDoc>('Message', messageSchema);
    this.Event = connection.model<EventDoc>('MessageEvent', eventSchema);
    this.Content = connection.model<ContentDoc>('MessageContent', contentSchema);
    this.Summary = connection.model<SummaryDoc>('MessageSummary', summarySchema);
  }

  async init(): Promise<void> {
    await Promise.all([this.Message.init(), this.Event.init(), this.Content.init(), this.Summary.init()]);
  }

  /** Keeps the summaries of messages whose delivery ended; one kept already (a replay) is left as it is. */
  async keepSummaries(summaries: SummaryDoc[]): Promise<void> {
    const changes = this.summaryChanges;
    const taken = await insertNew(this.Summary, summaries);
    for (const [i, summary] of summaries.entries()) {
      this.unsummarized.delete(summary._id);
      if (changes === this.summaryChanges && !taken.has(i)) this.hotSummaries.set(summary._id, summary);
    }
  }

  /** Whether this process stored the message and has not summarized it: its delivery is most likely under way. */
  inDeliveryHere(id: string): boolean {
    return this.unsummarized.get(id) === true;
  }

  /** Writes a message's summary anew (an open or a click changed it), by `_id`. */
  async replaceSummary(summary: SummaryDoc): Promise<void> {
    this.summaryChanges++;
    this.hotSummaries.delete(summary._id);
    const replace = () => this.Summary.replaceOne({ _id: summary._id }, summary, { upsert: true }).exec();
    try {
      await replace();
    } catch (error) {
      // An upsert that found no summary inserts one, and loses to the attempt's summary kept at the
      // same moment (a bounce reported as the mail is recorded sent): it then replaces that one.
      if (!isDuplicateKeyError(error)) throw error;
      await replace();
    }
  }

  /** A message's summary in the project; null while its delivery is under way (or it is gone). */
  async summary(projectId: string, id: string): Promise<Message | null> {
    const doc = this.hotSummaries.get(id) ?? (await this.Summary.findById(id).lean<SummaryDoc>().exec());
    return doc?.projectId === projectId ? currentView(doc.view) : null;
  }

  /** Inserts one message, in a group with those inserted at the same time; true when it existed already (a redelivered trigger). */
  readonly insertOne = (doc: MessageDoc): Promise<boolean> => this.inserts.add(doc);

  private readonly inserts = new GroupCommit<MessageDoc, boolean>(async (docs) => {
    const existing = await this.insertNew(docs);
    return docs.map((d) => existing.has(d._id));
  });

  /** Inserts the messages; returns the ids that existed already (a redelivered trigger). */
  async insertNew(docs: MessageDoc[]): Promise<Set<string>> {
    const existing = await insertNew(this.Message, docs);
    for (const [i, doc] of docs.entries())
      if (!existing.has(i)) {
        this.hotMessages.set(doc._id, doc);
        this.unsummarized.set(doc._id, true);
        if (!doc.sendAt) this.unattempted.set(doc._id, true);
      }
    return new Set(docs.filter((_, i) => existing.has(i)).map((d) => d._id));
  }

  /** Appends events; ones already stored (same id) are skipped. */
  async append(events: EventDoc[]): Promise<void> {
    this.attempted(events);
    await insertNew(this.Event, events);
  }

  /** Appends events; returns the ids that were stored already. */
  async appendNew(events: EventDoc[]): Promise<Set<string>> {
    const first = this.attempted(events);
    const existing = await insertNew(this.Event, events);
    // A first attempt's events, written whole here: its delivery history, as a read would keep it.
    if (existing.size === 0)
      for (const id of first) {
        const history = finishedHistory(id, events);
        if (history) this.hotDeliveries.set(id, history);
      }
    return new Set(events.filter((_, i) => existing.has(i)).map((e) => e._id));
  }

  /**
   * Their messages' timelines are read again: they have events (forgotten before the write, so no
   * read misses it). Returns the messages that had none before.
   */
  private attempted(events: EventDoc[]): string[] {
    const first = new Set(events.filter((e) => this.unattempted.get(e.messageId)).map((e) => e.messageId));
    for (const e of events) this.unattempted.delete(e.messageId);
    return [...first];
  }

  /** Keeps rendered emails; one kept already (a retry rendered it again) is left as it is. */
  async keepContents(contents: ContentDoc[]): Promise<void> {
    await insertNew(this.Content, contents);
  }

  /** A message's rendered email, by its id alone; null when it was never rendered (or is gone). */
  async content(messageId: string): Promise<ContentDoc | null> {
    return this.Content.findById(messageId).lean<ContentDoc>().exec();
  }

  /**
   * Writes stored messages anew, by `_id` (an erasure redacting an address copied on them): rare,
   * unlike the inserts, and whole documents written as given (as the inserts are: mongoose's cast
   * would drop the fields the schema does not name). This process's hot window forgets them;
   * another instance's forgets them within HOT_TTL_MS.
   */
  async rewriteMessages(docs: MessageDoc[]): Promise<void> {
    await Promise.all(docs.map((doc) => this.Message.collection.replaceOne(byId(doc._id), doc)));
    for (const doc of docs) this.hotMessages.delete(doc._id);
  }

  /** Writes timeline entries anew, by `_id` (see rewriteMessages). */
  async rewriteEvents(events: EventDoc[]): Promise<void> {
    this.attempted(events);
    await Promise.all(events.map((e) => this.Event.collection.replaceOne(byId(e._id), e)));
    for (const e of events) this.hotDeliveries.delete(e.messageId);
  }

  /** Whether a message has a summary (its delivery ended), by `_id`. */
  async hasSummary(id: string): Promise<boolean> {
    return (await this.Summary.exists({ _id: id }).exec()) !== null;
  }

  /** Counts one more occurrence of an engagement event (by its exact id: no scan). */
  async countAgain(eventId: string): Promise<void> {
    await this.Event.updateOne({ _id: eventId }, { $inc: { count: 1 } }).exec();
  }

  async message(projectId: string, id: string): Promise<MessageDoc | null> {
    const doc = await this.byId(id);
    return doc?.projectId === projectId ? doc : null;
  }

  /** By _id alone (a filter with a second field, such as the project, is not a point read). */
  private async byId(id: string): Promise<MessageDoc | null> {
    const hot = this.hotMessages.get(id);
    if (hot) return hot;
    const doc = await this.Message.findById(id).lean<MessageDoc>().exec();
    if (doc) this.hotMessages.set(id, doc);
    return doc;
  }

  async messagesById(ids: string[]): Promise<Map<string, MessageDoc>> {
    const docs = await inParallel(ids, (id) => this.byId(id));
    return new Map(docs.filter((d): d is MessageDoc => d !== null).map((d) => [d._id, d]));
  }

  /** A message's timeline after `queued`, in sequence order: a few point reads. */
  async timeline(id: string): Promise<EventDoc[]> {
    if (this.unattempted.get(id)) return [];
    const [delivery, engagement] = await Promise.all([
      this.deliveries(id),
      this.probe(
        (n) => engagementEventId(id, n),
        () => true,
        1,
      ),
    ]);
    return [...delivery, ...engagement].sort((a, b) => a.sequence - b.sequence || a.at.getTime() - b.at.getTime());
  }

  /** The timelines of some messages, each in sequence order. */
  async timelines(ids: string[]): Promise<Map<string, EventDoc[]>> {
    const found = await inParallel(ids, (id) => this.timeline(id), 8);
    return new Map(ids.map((id, i) => [id, found[i]!]));
  }

  /** The delivery events of some messages, each in attempt order: their timelines without engagement entries. */
  async deliveryHistories(ids: string[]): Promise<Map<string, EventDoc[]>> {
    const found = await inParallel(ids, (id) => this.deliveries(id));
    return new Map(ids.map((id, i) => [id, found[i]!]));
  }

  /** The delivery events (one per attempt): no delivery event follows a terminal one, so a sent message costs one read. */
  private async deliveries(id: string): Promise<EventDoc[]> {
    const hot = this.hotDeliveries.get(id);
    if (hot) return hot;
    const events = await this.probe(
      (n) => deliveryEventId(id, n),
      (e) => !isTerminal(e.event),
      2,
    );
    if (events.some((e) => isTerminal(e.event))) this.hotDeliveries.set(id, events);
    return events;
  }

  /**
   * Reads ids number 1, 2, … until one is missing (or `more` says none can follow): the first
   * alone (most chains are that short), then `width` at a time.
   */
  private async probe(idOf: (n: number) => string, more: (e: EventDoc) => boolean, then: number): Promise<EventDoc[]> {
    const found: EventDoc[] = [];
    for (let n = 1, width = 1; ; n += width, width = then) {
      const docs = await Promise.all(
        Array.from({ length: width }, (_, k) =>
          this.Event.findById(idOf(n + k))
            .lean<EventDoc>()
            .exec(),
        ),
      );
      for (const doc of docs) {
        if (!doc) return found;
        found.push(doc);
        if (!more(doc)) return found;
      }
    }
  }

  /**
   * Deletes messages with their timelines, summaries and rendered emails (erasure, retention), each by exact
   * id, a bounded number at a time; counts what went. The message last: a message left without
   * its timeline or content is still found (and deleted) by a repeat.
   */
  async delete(ids: string[]): Promise<{ messages: number; events: number }> {
    this.summaryChanges++;
    const counts = await inParallel(ids, async (id) => {
      this.hotSummaries.delete(id);
      this.hotMessages.delete(id);
      this.hotDeliveries.delete(id);
      this.unsummarized.delete(id);
      this.unattempted.delete(id);
      const events = await this.timeline(id);
      await Promise.all([
        ...events.map((e) => this.Event.deleteOne({ _id: e._id }).exec()),
        this.Content.deleteOne({ _id: id }).exec(),
        this.Summary.deleteOne({ _id: id }).exec(),
      ]);
      const gone = await this.Message.deleteOne({ _id: id }).exec();
      return { messages: gone.deletedCount, events: events.length };
    });
    return counts.reduce((a, c) => ({ messages: a.messages + c.messages, events: a.events + c.events }), { messages: 0, events: 0 });
  }
}
