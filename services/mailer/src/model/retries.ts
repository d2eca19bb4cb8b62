import { Schema, type Connection } from 'mongoose';

/** A deferred message waiting for its next attempt: a small collection of due work. */
interface RetryDoc {
  _id: string;
  dueAt: Date;
  attempt: number;
}

const retrySchema = new Schema<RetryDoc>({ _id: String, dueAt: Date, attempt: Number }, { collection: 'retries', versionKey: false });
retrySchema.index({ dueAt: 1 });

export interface DueRetry {
  messageId: string;
  attempt: number;
}

/**
 * Scheduled attempts of deferred messages. Claiming moves a retry's due time a lease ahead, so
 * several mailer instances never take the same one, and one that dies is taken again later.
 */
export class RetryQueue {
  private readonly Retry;

  constructor(connection: Connection) {
    this.Retry = connection.model<RetryDoc>('Retry', retrySchema);
  }

  async init(): Promise<void> {
    await this.Retry.init();
  }

  async schedule(messageId: string, attempt: number, dueAt: Date): Promise<void> {
    await this.Retry.replaceOne({ _id: messageId }, { dueAt, attempt }, { upsert: true }).exec();
  }

  async pending(messageId: string): Promise<boolean> {
    return (await this.Retry.exists({ _id: messageId }).exec()) !== null;
  }

  /** Claims up to `limit` due retries for `leaseMs`. */
  async claimDue(limit: number, leaseMs: number): Promise<DueRetry[]> {
    const now = new Date();
    const due = await this.Retry.find({ dueAt: { $lte: now } })
      .sort({ dueAt: 1 })
      .limit(limit)
      .lean<RetryDoc[]>()
      .exec();
    const claimed: DueRetry[] = [];
    for (const retry of due) {
      const taken = await this.Retry.findOneAndUpdate(
        { _id: retry._id, dueAt: retry.dueAt },
        { $set: { dueAt: new Date(now.getTime() + leaseMs) } },
        { returnDocument: 'after' },
      )
        .lean<RetryDoc>()
        .exec();
      if (taken) claimed.push({ messageId: retry._id, attempt: retry.attempt });
    }
    return claimed;
  }

  async done(messageId: string): Promise<void> {
    await this.Retry.deleteOne({ _id: messageId }).exec();
  }
}
