import { Schema, type Connection } from 'mongoose';
import { deleteByIds, DueQueue, findByIds, insertNew } from '@postbus/db';
import type { ScheduleDecision, WaitingSends } from '../domain/ports/schedules';

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
export class ScheduleQueue implements WaitingSends {
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
    const [decided] = await this.decideMany([messageId], decision);
    return decided!;
  }

  /**
   * decide for many messages in one insert; the decisions already taken (a claimer that died, a
   * cancel) are read back by `_id`. In the order of `messageIds`.
   */
  async decideMany(messageIds: string[], decision: ScheduleDecision): Promise<Array<{ decision: ScheduleDecision; fresh: boolean }>> {
    const at = new Date();
    const taken = await insertNew(
      this.Decision,
      messageIds.map((_id) => ({ _id, decision, at })),
    );
    const takenIds = messageIds.filter((_, i) => taken.has(i));
    const stored = new Map((await findByIds(this.Decision, takenIds)).map((d) => [d._id, d.decision]));
    return messageIds.map((id, i) => {
      if (!taken.has(i)) return { decision, fresh: true };
      const standing = stored.get(id);
      if (!standing) throw new Error(`the schedule decision of ${id} was taken and is gone`);
      return { decision: standing, fresh: false };
    });
  }

  /** The decisions taken about these messages, by `_id`; a message still waiting for its time has none. */
  async decisions(messageIds: string[]): Promise<Map<string, ScheduleDecision>> {
    return new Map((await findByIds(this.Decision, messageIds)).map((d) => [d._id, d.decision]));
  }

  /** Drops what the schedule holds about these messages (purged or erased): their decisions and any wait left. */
  async forget(messageIds: string[]): Promise<void> {
    await Promise.all([deleteByIds(this.Decision, messageIds), ...messageIds.map((id) => this.queue.done(id))]);
  }
}
