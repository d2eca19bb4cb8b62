import { performance } from 'node:perf_hooks';

/**
 * Shares a service's event loop between work that runs many chains side by side and the requests
 * the same process serves. A run of deliveries resumes hundreds of chains in one microtask drain
 * (a group commit answering all its callers at once), and each then composes, signs and writes
 * synchronously: the loop is held for the whole drain, and a read's database answer waits behind
 * it. Each chain hands its heavy steps to `run`: once the loop's current turn has run steps for
 * `budgetMs`, the next steps wait for a later turn (setImmediate), so the I/O callbacks that
 * arrived meanwhile run in between. Work is only reordered, never skipped: steps start in the
 * order they were handed in.
 */
export class LoopTurns {
  private turnStartedAt: number | undefined;
  private nextTurn: Promise<void> | undefined;
  private waiting = 0;

  constructor(private readonly budgetMs: number) {}

  /**
   * Starts `step` in this turn of the loop if the turn is within its budget (and no earlier step
   * waits), else in a later turn. The step's synchronous part runs right after that check.
   */
  async run<T>(step: () => Promise<T>): Promise<T> {
    if (this.waiting === 0 && this.withinBudget()) return step();
    this.waiting++;
    try {
      do await this.laterTurn();
      while (!this.withinBudget());
    } finally {
      this.waiting--;
    }
    return step();
  }

  private withinBudget(): boolean {
    const now = performance.now();
    if (this.turnStartedAt === undefined) {
      // An immediate queued now runs once this turn's callbacks and microtasks are done.
      this.turnStartedAt = now;
      setImmediate(() => (this.turnStartedAt = undefined));
      return true;
    }
    return now - this.turnStartedAt < this.budgetMs;
  }

  private laterTurn(): Promise<void> {
    return (this.nextTurn ??= new Promise<void>((resolve) =>
      setImmediate(() => {
        this.nextTurn = undefined;
        resolve();
      }),
    ));
  }
}
