import { Schema, type Connection } from 'mongoose';
import { insertNew } from '@postbus/db';
import type { ReceivedRecord } from '../domain/feedback';
import type { ReceivedRecords } from '../domain/ports';

type ReceivedDoc = ReceivedRecord & { _id: string };

const receivedSchema = new Schema<ReceivedDoc>(
  {
    _id: String,
    receivedAt: Date,
    report: String,
    ignored: String,
    messageIds: [String],
    feedback: [String],
    truncated: Boolean,
  },
  { collection: 'received_mail', versionKey: false },
);

/** The record of each mail the service read, kept INBOUND_RECORD_RETENTION_DAYS. */
export class ReceivedMail implements ReceivedRecords {
  private readonly Doc;

  constructor(connection: Connection) {
    this.Doc = connection.model<ReceivedDoc>('ReceivedMail', receivedSchema);
  }

  async init(): Promise<void> {
    await this.Doc.init();
  }

  /** Forgets the records of mail received before `cutoff` (INBOUND_RECORD_RETENTION_DAYS): a sweep off the hot path, which only appends. */
  async purgeBefore(cutoff: Date): Promise<number> {
    return (await this.Doc.deleteMany({ receivedAt: { $lt: cutoff } })).deletedCount;
  }

  /** Several at once, with one insert; each `id` is its bus message's id, so a redelivered mail is recorded once. */
  async recordMany(records: Array<{ id: string; record: ReceivedRecord }>): Promise<void> {
    await insertNew(
      this.Doc,
      records.map(({ id, record }) => ({ _id: id, ...record })),
    );
  }
}
