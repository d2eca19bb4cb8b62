import { Schema, type Connection, type Model } from 'mongoose';
import { GroupCommit, growing, insertNew } from '@postbus/db';
import type { AcceptedMessage, AcceptedMessages } from '../domain/accepted-messages';

interface AcceptedDoc extends Omit<AcceptedMessage, 'id'> {
  _id: string;
}

const PREFIX = 'accepted_messages_';
const PERIOD_MS = 12 * 60 * 60 * 1000;

/** The collection suffix of the 12 hours (UTC) a time falls in: accepted_messages_20261203_12. */
const periodOf = (at: number): string => {
  const start = new Date(Math.floor(at / PERIOD_MS) * PERIOD_MS).toISOString();
  return `${start.slice(0, 10).replace(/-/g, '')}_${start.slice(11, 13)}`;
};

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
      // A collection comes with its first insert: a read of a period with none creates nothing.
      { versionKey: false, minimize: true, autoCreate: false, autoIndex: false },
    ),
  );

/**
 * The accepted messages of the last 12 to 24 hours, one collection per 12 hours (UTC), each read
 * and written by `_id` alone. A period's collection is dropped whole once the one after it has
 * ended, which costs one command per period where deleting each record would cost one write a
 * message: a record is readable at least 12 hours, long past the moment the mailer records its
 * message behind any backlog it can drain, and gone within 24 hours and a purge interval, long
 * before the 48 hours after which an erasure runs (the recipient's address is in it). The next
 * period is read and kept too, for a gateway whose clock runs ahead. Concurrent accepts are
 * written together (GroupCommit: one insertMany per group and period).
 */
export class AcceptedMessageRepository implements AcceptedMessages {
  private readonly models = new Map<string, Model<AcceptedDoc>>();
  private readonly writes: GroupCommit<AcceptedMessage>;

  constructor(
    private readonly connection: Connection,
    private readonly now: () => Date = () => new Date(),
  ) {
    this.writes = new GroupCommit(async (messages) => {
      const byPeriod = new Map<string, AcceptedDoc[]>();
      for (const { id, ...rest } of messages) {
        const period = periodOf(rest.acceptedAt.getTime());
        byPeriod.set(period, [...(byPeriod.get(period) ?? []), { _id: id, ...rest }]);
      }
      // A record already there is a retry's (the same Idempotency-Key names the same message).
      await Promise.all([...byPeriod].map(([period, docs]) => insertNew(this.modelOf(period), docs)));
    });
  }

  private modelOf(period: string): Model<AcceptedDoc> {
    let model = this.models.get(period);
    if (!model) {
      model = this.connection.model<AcceptedDoc>(`AcceptedMessage${period}`, schema(), `${PREFIX}${period}`);
      this.models.set(period, model);
    }
    return model;
  }

  /** Stores the records; resolves once they are stored. */
  async record(messages: AcceptedMessage[]): Promise<void> {
    await Promise.all(messages.map((m) => this.writes.add(m)));
  }

  /** The project's accepted message by id, from the kept periods' records; null when there is none. */
  async find(projectId: string, id: string): Promise<AcceptedMessage | null> {
    const found = (
      await Promise.all(this.keptPeriods().map((period) => this.modelOf(period).findById(id).lean<AcceptedDoc>().exec()))
    ).find((doc) => doc?.projectId === projectId);
    if (!found) return null;
    const { _id, ...rest } = found;
    return { id: _id, ...rest };
  }

  /** The periods whose records are kept: the one before this, this one and the next. */
  private keptPeriods(): string[] {
    const now = this.now().getTime();
    return [now - PERIOD_MS, now, now + PERIOD_MS].map(periodOf);
  }

  /** Drops the collections of the periods before the last; answers how many. */
  async dropOldPeriods(): Promise<number> {
    const keep = new Set(this.keptPeriods());
    const names = await this.connection.db!.listCollections({}, { nameOnly: true }).toArray();
    const old = names.map((c) => c.name).filter((name) => name.startsWith(PREFIX) && !keep.has(name.slice(PREFIX.length)));
    for (const name of old) {
      await this.connection.dropCollection(name).catch((error: { codeName?: string }) => {
        if (error.codeName !== 'NamespaceNotFound') throw error; // another gateway dropped it first
      });
      const period = name.slice(PREFIX.length);
      if (this.models.delete(period)) this.connection.deleteModel(`AcceptedMessage${period}`);
    }
    return old.length;
  }
}
