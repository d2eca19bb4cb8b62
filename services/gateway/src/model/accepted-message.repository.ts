import { Schema, type Connection, type Model } from 'mongoose';
import { GroupCommit, growing, insertNew } from '@postbus/db';
import type { AcceptedMessage, AcceptedMessages } from '../domain/accepted-messages';

interface AcceptedDoc extends Omit<AcceptedMessage, 'id'> {
  _id: string;
}

const PREFIX = 'accepted_messages_';
const DAY_MS = 24 * 60 * 60 * 1000;

/** The day's collection suffix (UTC): accepted_messages_20261203. */
const dayOf = (at: Date): string => at.toISOString().slice(0, 10).replace(/-/g, '');

const schema = () =>
  growing(
    new Schema<AcceptedDoc>(
      {
        _id: String,
        projectId: String,
        emailKey: String,
        email: String,
        userId: String,
        acceptedAt: Date,
        test: Boolean,
        sendAt: String,
        tags: [String],
        metadata: Schema.Types.Mixed,
        cc: [String],
        bcc: [String],
        attachments: Schema.Types.Mixed,
      },
      { versionKey: false, minimize: true },
    ),
  );

/**
 * The accepted messages of today and yesterday (UTC), one collection a day, each read and written
 * by `_id` alone. A day's collection is dropped whole once it is two days old, which costs one
 * command a day where deleting each record would cost one write a message; so a record lives 24 to
 * 48 hours, long past the moment the mailer records its message behind any backlog it can drain,
 * and never past the 48 hours after which an erasure runs (the recipient's address is in it).
 * Concurrent accepts are written together (GroupCommit: one insertMany per group and day).
 */
export class AcceptedMessageRepository implements AcceptedMessages {
  private readonly models = new Map<string, Model<AcceptedDoc>>();
  private readonly writes: GroupCommit<AcceptedMessage>;

  constructor(
    private readonly connection: Connection,
    private readonly now: () => Date = () => new Date(),
  ) {
    this.writes = new GroupCommit(async (messages) => {
      const byDay = new Map<string, AcceptedDoc[]>();
      for (const { id, ...rest } of messages) {
        const day = dayOf(rest.acceptedAt);
        byDay.set(day, [...(byDay.get(day) ?? []), { _id: id, ...rest }]);
      }
      // A record already there is a retry's (the same Idempotency-Key names the same message).
      await Promise.all([...byDay].map(([day, docs]) => insertNew(this.modelOf(day), docs)));
    });
  }

  private modelOf(day: string): Model<AcceptedDoc> {
    let model = this.models.get(day);
    if (!model) {
      model = this.connection.model<AcceptedDoc>(`AcceptedMessage${day}`, schema(), `${PREFIX}${day}`);
      this.models.set(day, model);
    }
    return model;
  }

  /** Stores the records; resolves once they are stored. */
  async record(messages: AcceptedMessage[]): Promise<void> {
    await Promise.all(messages.map((m) => this.writes.add(m)));
  }

  /** The project's accepted message by id, from today's or yesterday's records; null when there is none. */
  async find(projectId: string, id: string): Promise<AcceptedMessage | null> {
    const found = (await Promise.all(this.recentDays().map((day) => this.modelOf(day).findById(id).lean<AcceptedDoc>().exec()))).find(
      (doc) => doc?.projectId === projectId,
    );
    if (!found) return null;
    const { _id, ...rest } = found;
    return { id: _id, ...rest };
  }

  /** Today's and yesterday's (UTC): the days whose records are kept. */
  private recentDays(): string[] {
    const now = this.now().getTime();
    return [dayOf(new Date(now)), dayOf(new Date(now - DAY_MS))];
  }

  /** Drops the collections of the days before yesterday; answers how many. */
  async dropOldDays(): Promise<number> {
    const keep = new Set(this.recentDays());
    const names = await this.connection.db!.listCollections({}, { nameOnly: true }).toArray();
    const old = names.map((c) => c.name).filter((name) => name.startsWith(PREFIX) && !keep.has(name.slice(PREFIX.length)));
    for (const name of old) {
      await this.connection.dropCollection(name).catch((error: { codeName?: string }) => {
        if (error.codeName !== 'NamespaceNotFound') throw error; // another gateway dropped it first
      });
      const day = name.slice(PREFIX.length);
      if (this.models.delete(day)) this.connection.deleteModel(`AcceptedMessage${day}`);
    }
    return old.length;
  }
}
