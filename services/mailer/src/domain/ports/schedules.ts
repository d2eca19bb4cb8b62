/** A deferred message's next attempt, due now. */
export interface DueRetry {
  messageId: string;
  attempt: number;
}

/** The next attempts of deferred messages, each waiting for its time (model/retry.repository.ts). */
export interface RetrySchedule {
  schedule(messageId: string, attempt: number, dueAt: Date): Promise<void>;
  /** Whether the message has an attempt waiting. */
  pending(messageId: string): Promise<boolean>;
  /** Up to `limit` attempts due now, each claimed for `leaseMs`. */
  claimDue(limit: number, leaseMs: number): Promise<DueRetry[]>;
  done(messageId: string): Promise<void>;
  /** Drops the waiting attempts of these messages. */
  cancel(messageIds: string[]): Promise<void>;
}

/** What became of a scheduled message at its time: sent (a worker took it) or cancelled (a client did). */
export type ScheduleDecision = 'send' | 'cancel';

/**
 * Scheduled sends waiting for their time, and the one decision each comes to: whoever decides a
 * message first wins (model/schedule.repository.ts).
 */
export interface WaitingSends {
  /** Waits a message for its time; one waiting or taken already is left as it is. */
  schedule(messageId: string, sendAt: Date): Promise<void>;
  /** The ids of up to `limit` messages due now, each claimed for `leaseMs`. */
  claimDue(limit: number, leaseMs: number): Promise<string[]>;
  /** The message needs its time no more: sent, cancelled or gone. */
  done(messageId: string): Promise<void>;
  /** Decides the message's fate, unless it was decided already: the decision that stands, and whether it is this call's. */
  decide(messageId: string, decision: ScheduleDecision): Promise<{ decision: ScheduleDecision; fresh: boolean }>;
  /** `decide` for many messages, in the order of `messageIds`. */
  decideMany(messageIds: string[], decision: ScheduleDecision): Promise<Array<{ decision: ScheduleDecision; fresh: boolean }>>;
  /** The decisions taken about these messages; one still waiting has none. */
  decisions(messageIds: string[]): Promise<Map<string, ScheduleDecision>>;
  /** Drops what the schedule holds about these messages: their decisions and any wait left. */
  forget(messageIds: string[]): Promise<void>;
}
