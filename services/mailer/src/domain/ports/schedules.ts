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
 * What stands about a waiting message: its decision, or a hold (a client is changing its time; a
 * worker leaves a held message waiting). A hold is taken and dropped within one request: one left
 * by a process that died is broken by the next decide once it is HOLD_MS old.
 */
export type StandingDecision = ScheduleDecision | 'hold';

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
  /**
   * Decides the message's fate (or holds it), unless that was done already: what stands, whether
   * it is this call's, and when it was taken (a hold is released by it).
   */
  decide(messageId: string, decision: StandingDecision): Promise<{ decision: StandingDecision; fresh: boolean; at: Date }>;
  /** `decide` for many messages, in the order of `messageIds`. */
  decideMany(messageIds: string[], decision: ScheduleDecision): Promise<Array<{ decision: StandingDecision; fresh: boolean }>>;
  /** Drops the hold taken at `heldAt` (and nothing else): the message waits for its time again. */
  release(messageId: string, heldAt: Date): Promise<void>;
  /** Moves a waiting message to another time (a claim of its old time lapses with it). */
  move(messageId: string, sendAt: Date): Promise<void>;
  /** The decisions taken about these messages; one still waiting (or held) has none. */
  decisions(messageIds: string[]): Promise<Map<string, ScheduleDecision>>;
  /** Drops what the schedule holds about these messages: their decisions and any wait left. */
  forget(messageIds: string[]): Promise<void>;
}
