import type { EmailTriggerCommand } from '@postbus/contracts';
import type { SendPathPriority } from '@postbus/bus';

export interface BulkLaneDeps {
  /** Single sends being delivered: while they are, batch messages go at a bounded rate (MAILER_BULK_RATE_WHILE_SENDING). */
  singles: Pick<SendPathPriority, 'admit'>;
  /**
   * Whether the single-send lane (Topics.EmailCommands) has handled everything published to it
   * before `time`: the erasures and suppressions a batch accepted after them must find applied.
   */
  singlesPassed: (time: Date) => Promise<boolean>;
  pollMs?: number;
  sleep?: (ms: number) => Promise<void>;
}

/**
 * The batch lane's turn. A batch send's messages travel on a topic of their own, so one client's
 * thousands of batched messages never queue ahead of another client's single send; the mailer
 * takes them one run at a time, at a bounded rate while single sends are being delivered, and a
 * run only once the single-send lane has passed the time its newest message was accepted. That
 * keeps the order the gateway gives: an erasure or a suppression accepted before a batch is
 * applied before the batch's mail goes.
 */
export class BulkLane {
  private closed = false;
  private readonly pollMs: number;
  private readonly sleep: (ms: number) => Promise<void>;

  constructor(private readonly deps: BulkLaneDeps) {
    this.pollMs = deps.pollMs ?? 200;
    this.sleep = deps.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms)));
  }

  /**
   * Waits until a run of batch messages may be delivered. Once the lane is closed (the mailer
   * stopping, its single-send group with it), a run still waiting is refused: its messages stay
   * on the bus for the group's next member.
   */
  async admit(triggers: EmailTriggerCommand[]): Promise<void> {
    if (triggers.length === 0) return;
    await this.deps.singles.admit(triggers.length);
    const newest = new Date(Math.max(...triggers.map((t) => Date.parse(t.acceptedAt))));
    while (!(await this.deps.singlesPassed(newest))) {
      if (this.closed) throw new Error('the mailer is stopping: this run of batch messages is left to the next member');
      await this.sleep(this.pollMs);
    }
  }

  /** Refuses the runs still waiting for the single-send lane, which stops with the mailer. */
  close(): void {
    this.closed = true;
  }
}
