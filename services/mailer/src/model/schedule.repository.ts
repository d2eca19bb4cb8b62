import { Schema, type Connection } from 'mongoose';
import { DueQueue, isDuplicateKeyError } from '@postbus/db';

/** What became of a scheduled message at its time: sent (a worker took it) or cancelled (a client did). */
export type ScheduleDecision = 'send' | 'cancel';

interface DecisionDoc {
  _id: string;
  decision: ScheduleDecision;
  at: Date;
}

/**
 * Scheduled sends waiting for their time (a DueQueue: claims with leases, safe with several
 * instances), and the one decision each comes to. The worker that takes a due message and a
 * client cancelling it both insert the message's decision under its id: the unique `_id` lets
 * exactly one of them win, on FerretDB too, so a message is never both sent and cancelled.
 */
export class ScheduleQueue {
  private readonly queue: DueQueue<Record<string, never>>;
  private readonly Decision;

  constructor(connection: Connection) {
    this.queue = new DueQueue(connection, 'scheduled_sends');
    this.Decision = connection.model<DecisionDoc>(
      'ScheduleDecision',
      new Schema<DecisionDoc>({ _id: String, decision: String, at: Date }, { collection: 'scheduled_decisions', versionKey: false }),
    );
  }

  async init(): Promise<void> {
    await Promise.all([this.queue.init(), this.Decision.init()]);
  }

  /** Waits a message for its time; one waiting or taken already (a redelivered trigger) is left as it is. */
  schedule(messageId: string, sendAt: Date): Promise<void> {
    return this.queue.scheduleMany([{ id: messageId, dueAt: sendAt, payload: {} }]);
  }

  /** The ids of up to `limit` messages due now, each claimed for `leaseMs` (one whose claimer died comes back after it). */
  async claimDue(limit: number, leaseMs: number): Promise<string[]> {
    return (await this.queue.claimDue(limit, leaseMs)).map((item) => item.id);
  }

  /** The message needs its time no more: sent, cancelled or gone. */
  done(messageId: string): Promise<void> {
    return this.queue.done(messageId);
  }

  /** Decides the message's fate, unless it was decided already: the decision that stands, and whether it is this call's. */
  async decide(messageId: string, decision: ScheduleDecision): Promise<{ decision: ScheduleDecision; fresh: boolean }> {
    try {
      await this.Decision.create({ _id: messageId, decision, at: new Date() });
      return { decision, fresh: true };
    } catch (error) {
      if (!isDuplicateKeyError(error)) throw error;
    }
    const stored = await this.Decision.findById(messageId).lean<DecisionDoc>().exec();
    if (!stored) throw new Error(`the schedule decision of ${messageId} was taken and is gone`);
    return { decision: stored.decision, fresh: false };
  }
}
