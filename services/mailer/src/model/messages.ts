import { Schema, type Connection } from 'mongoose';
import { MESSAGE_STATUSES, type MessageStatus, type TimelineEventName } from '@postbus/contracts';
import { GroupCommit, insertNew } from '@postbus/db';

/** One triggered email as accepted: written once, never updated (updates scan on FerretDB). */
export interface MessageDoc {
  _id: string;
  projectId: string;
  emailId: string;
  emailKey: string;
  templateId: string;
  templateVersion: number;
  email: string;
  userId: string | null;
  user: Record<string, unknown>;
  data: Record<string, unknown>;
  acceptedAt: Date;
  createdAt: Date;
}

/** One entry of a message's timeline after `queued` (which the message itself stands for). */
export interface EventDoc {
  /** `<messageId>:<sequence>`, or `<messageId>:<source event id>` for engagement: a replay inserts nothing. */
  _id: string;
  messageId: string;
  projectId: string;
  event: TimelineEventName;
  sequence: number;
  at: Date;
  smtp?: { code: number; response: string };
  reason?: string;
  url?: string;
  attempt?: number;
  subject?: string;
  /** Engagement: how many times it happened (the first open, one link, the unsubscribe); only the first is an event. */
  count?: number;
}

const messageSchema = new Schema<MessageDoc>(
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
);
messageSchema.index({ projectId: 1, createdAt: -1, _id: -1 });
messageSchema.index({ projectId: 1, email: 1, createdAt: -1 });
messageSchema.index({ projectId: 1, userId: 1, createdAt: -1 });

const eventSchema = new Schema<EventDoc>(
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
    count: { type: Number, default: undefined },
  },
  { collection: 'message_events', versionKey: false },
);
eventSchema.index({ messageId: 1, sequence: 1 });

const TERMINAL = new Set<string>(['sent', 'bounced', 'failed', 'suppressed']);
const RANK = new Map<string, number>(MESSAGE_STATUSES.map((s, i) => [s, i]));

/** The delivery status a message's events add up to: the latest delivery event, or queued. */
export function statusOf(events: EventDoc[]): MessageStatus {
  let status: MessageStatus = 'queued';
  let sequence = 0;
  for (const e of events) if (RANK.has(e.event) && e.sequence >= sequence) [status, sequence] = [e.event as MessageStatus, e.sequence];
  return status;
}

export const isFinished = (events: EventDoc[]): boolean => TERMINAL.has(statusOf(events));

export interface MessageFilter {
  projectId: string;
  email?: string;
  userId?: string;
}

/** Messages and their timelines: both append-only, read by index. */
export class MessageStore {
  private readonly Message;
  private readonly Event;

  constructor(connection: Connection) {
    this.Message = connection.model<MessageDoc>('Message', messageSchema);
    this.Event = connection.model<EventDoc>('MessageEvent', eventSchema);
  }

  async init(): Promise<void> {
    await Promise.all([this.Message.init(), this.Event.init()]);
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
    return new Set(docs.filter((_, i) => existing.has(i)).map((d) => d._id));
  }

  /** Appends events; ones already stored (same id) are skipped. */
  async append(events: EventDoc[]): Promise<void> {
    await insertNew(this.Event, events);
  }

  /** Appends events; returns the ids that were stored already. */
  async appendNew(events: EventDoc[]): Promise<Set<string>> {
    const existing = await insertNew(this.Event, events);
    return new Set(events.filter((_, i) => existing.has(i)).map((e) => e._id));
  }

  /** Counts one more occurrence of an engagement event (by its exact id: no scan). */
  async countAgain(eventId: string): Promise<void> {
    await this.Event.updateOne({ _id: eventId }, { $inc: { count: 1 } }).exec();
  }

  async message(projectId: string, id: string): Promise<MessageDoc | null> {
    // By _id alone, the project checked here: FerretDB scans ten times longer when the filter adds a field.
    const doc = await this.Message.findById(id).lean<MessageDoc>().exec();
    return doc?.projectId === projectId ? doc : null;
  }

  async messagesById(ids: string[]): Promise<Map<string, MessageDoc>> {
    if (ids.length === 0) return new Map();
    const docs = await this.Message.find({ _id: { $in: ids } })
      .lean<MessageDoc[]>()
      .exec();
    return new Map(docs.map((d) => [d._id, d]));
  }

  /** The timelines of some messages, each in sequence order. */
  async timelines(ids: string[]): Promise<Map<string, EventDoc[]>> {
    const byMessage = new Map<string, EventDoc[]>(ids.map((id) => [id, []]));
    if (ids.length === 0) return byMessage;
    const docs = await this.Event.find({ messageId: { $in: ids } })
      .lean<EventDoc[]>()
      .exec();
    for (const d of docs) byMessage.get(d.messageId)?.push(d);
    for (const list of byMessage.values()) list.sort((a, b) => a.sequence - b.sequence || a.at.getTime() - b.at.getTime());
    return byMessage;
  }

  /** A project's messages to this address or this user id (either may be unknown) accepted up to `before`: id and address only. */
  async addressedTo(
    projectId: string,
    email: string | null,
    userId: string | null,
    before: Date,
  ): Promise<Array<{ _id: string; email: string }>> {
    // One indexed find per identifier rather than an $or, which FerretDB cannot serve from an index.
    const finds = [...(email !== null ? [{ projectId, email }] : []), ...(userId !== null ? [{ projectId, userId }] : [])].map((filter) =>
      this.Message.find({ ...filter, acceptedAt: { $lte: before } }, { _id: 1, email: 1 })
        .lean<Array<{ _id: string; email: string }>>()
        .exec(),
    );
    const found = (await Promise.all(finds)).flat();
    return [...new Map(found.map((m) => [m._id, m])).values()];
  }

  /** Deletes messages and their timelines (erasure: the one exception to append-only); counts what went. */
  async delete(ids: string[]): Promise<{ messages: number; events: number }> {
    if (ids.length === 0) return { messages: 0, events: 0 };
    // The timeline first: a message left without one is still found (and erased) by a repeat.
    const events = await this.Event.deleteMany({ messageId: { $in: ids } }).exec();
    const messages = await this.Message.deleteMany({ _id: { $in: ids } }).exec();
    return { messages: messages.deletedCount, events: events.deletedCount };
  }

  /** Newest first, strictly older than the cursor position. */
  async page(filter: MessageFilter, limit: number, after?: { createdAt: Date; id: string }): Promise<MessageDoc[]> {
    const query: Record<string, unknown> = { projectId: filter.projectId };
    if (filter.email !== undefined) query['email'] = filter.email;
    if (filter.userId !== undefined) query['userId'] = filter.userId;
    if (after) query['$or'] = [{ createdAt: { $lt: after.createdAt } }, { createdAt: after.createdAt, _id: { $lt: after.id } }];
    return this.Message.find(query).sort({ createdAt: -1, _id: -1 }).limit(limit).lean<MessageDoc[]>().exec();
  }
}
