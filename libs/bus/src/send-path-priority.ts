/** How work that no mail waits for yields to the send path (see SendPathPriority). */
export interface SendPathPriorityOptions {
  /** Items admitted a second at most while the send path is busy (e.g. the mailer's FEEDBACK_RATE_WHILE_SENDING). */
  whileSendingPerSecond: number;
  /** How long after its last run the send path still counts as busy: the gap between two runs of a burst. */
  busyWindowMs?: number;
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
}

const STEP_MS = 100;

/**
 * Work that no mail waits for yields to the send path: while triggers are being handled, it is
 * admitted at a bounded rate; otherwise at once. In the mailer, delivery reports (DSNs) and a
 * batch's messages yield to single sends; in the users service, a batch's implicit registrations.
 * A report comes minutes after its mail and waits on the bus meanwhile, so recording it a few
 * seconds later costs no one anything, while mail queued behind a wave of bounces would wait. The
 * bound is a floor as well: under a send load that never stops, the work still goes at that rate.
 */
export class SendPathPriority {
  private runs = 0;
  private lastRunEnd = -Infinity;
  private nextSlot = 0;
  private readonly busyWindowMs: number;
  private readonly now: () => number;
  private readonly sleep: (ms: number) => Promise<void>;

  constructor(private readonly options: SendPathPriorityOptions) {
    this.busyWindowMs = options.busyWindowMs ?? 1_000;
    this.now = options.now ?? Date.now;
    this.sleep = options.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms)));
  }

  /** Runs a delivery of triggers, the send path busy meanwhile. */
  async delivering<T>(work: () => Promise<T>): Promise<T> {
    this.runs++;
    try {
      return await work();
    } finally {
      this.runs--;
      this.lastRunEnd = this.now();
    }
  }

  /** Whether triggers are being delivered (or were a moment ago, between two runs). */
  busy(): boolean {
    return this.runs > 0 || this.now() - this.lastRunEnd < this.busyWindowMs;
  }

  /** Waits until `count` reports may be recorded: their turn at the bounded rate, or the send path idle. */
  async admit(count: number): Promise<void> {
    const at = this.now();
    if (!this.busy()) {
      this.nextSlot = at;
      return;
    }
    const turn = Math.max(at, this.nextSlot);
    this.nextSlot = turn + (count * 1000) / this.options.whileSendingPerSecond;
    for (let now = at; now < turn && this.busy(); now = this.now()) await this.sleep(Math.min(STEP_MS, turn - now));
  }
}
