import { Schema, type Connection } from 'mongoose';
import { deleteByIds, DueQueue, findByIds, insertNew } from '@postbus/db';
import type { ScheduleDecision, StandingDecision, WaitingSends } from '../domain/ports/schedules';

interface DecisionDoc {
  _id: string;
  decision: StandingDecision;
  at: Date;
}

/** A hold this old was left by a process that died while it changed the message's time: the next decide breaks it. */
export const HOLD_MS = 30_000;

interface Standing {
  decision: StandingDecision;
  fresh: boolean;
  at: Date;
}

/**
 * Scheduled sends waiting for their time (a DueQueue: claims with leases, safe with several
 * instances), and the one decision each comes to. The worker that takes a due message and a
 * client cancelling it both insert the message's decision under its id: the unique `_id` lets
 * exactly one of them win, on FerretDB too, so a message is never both sent and cancelled. A
 * client changing the message's time inserts a hold there the same way, and deletes it when done:
 * meanwhile no worker sends the message and no cancel ends it.
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

  /** Decides the message's fate (or holds it), unless that was done already: what stands, whether it is this call's, and since when. */
  async decide(messageId: string, decision: StandingDecision): Promise<Standing> {
    const [decided] = await this.decideAll([messageId], decision);
    return decided!;
  }

  /**
   * decide for many messages in one insert; the decisions already taken (a claimer that died, a
   * cancel, a hold) are read back by `_id`. In the order of `messageIds`.
   */
  async decideMany(messageIds: string[], decision: ScheduleDecision): Promise<Array<{ decision: StandingDecision; fresh: boolean }>> {
    return (await this.decideAll(messageIds, decision)).map(({ decision: standing, fresh }) => ({ decision: standing, fresh }));
  }

  /** Drops the hold taken at `heldAt`, and nothing else: a hold broken meanwhile and taken anew, or a decision, stays. */
  async release(messageId: string, heldAt: Date): Promise<void> {
    await this.Decision.deleteOne({ _id: messageId, decision: 'hold', at: heldAt }).exec();
  }

  /** Moves a waiting message to another time: its claims are keyed by the old time, so none holds the new one. */
  move(messageId: string, sendAt: Date): Promise<void> {
    return this.queue.schedule(messageId, sendAt, {});
  }

  /** The decisions taken about these messages, by `_id`; a message still waiting for its time (or held) has none. */
  async decisions(messageIds: string[]): Promise<Map<string, ScheduleDecision>> {
    const found = await findByIds(this.Decision, messageIds);
    return new Map(found.flatMap((d) => (d.decision === 'hold' ? [] : [[d._id, d.decision] as const])));
  }

  /**
   * Inserts the decisions, then reads back those already taken. A stale hold is deleted (by its
   * time, so only that one) and the insert tried again; so is a standing decision that went
   * between the insert and the read (a hold released meanwhile).
   */
  private async decideAll(messageIds: string[], decision: StandingDecision, tries = 3): Promise<Standing[]> {
    const at = new Date();
    const taken = await insertNew(
      this.Decision,
      messageIds.map((_id) => ({ _id, decision, at })),
    );
    const takenIds = messageIds.filter((_, i) => taken.has(i));
    const stored = new Map((await findByIds(this.Decision, takenIds)).map((d) => [d._id, d]));
    const stale = [...stored.values()].filter((d) => d.decision === 'hold' && at.getTime() - d.at.getTime() >= HOLD_MS);
    await Promise.all(stale.map((d) => this.release(d._id, d.at)));
    const again = takenIds.filter((id) => !stored.has(id) || stale.some((d) => d._id === id));
    if (again.length > 0 && tries <= 1) throw new Error(`the schedule decision of ${again[0]} keeps changing`);
    const retried = again.length > 0 ? await this.decideAll(again, decision, tries - 1) : [];
    const settled = new Map(again.map((id, i) => [id, retried[i]!]));
    return messageIds.map((id, i) => {
      if (!taken.has(i)) return { decision, fresh: true, at };
      const settledAgain = settled.get(id);
      if (settledAgain) return settledAgain;
      const standing = stored.get(id)!;
      return { decision: standing.decision, fresh: false, at: standing.at };
    });
  }

  /** Drops what the schedule holds about these messages (purged or erased): their decisions and any wait left. */
  async forget(messageIds: string[]): Promise<void> {
    await Promise.all([deleteByIds(this.Decision, messageIds), ...messageIds.map((id) => this.queue.done(id))]);
  }
}
