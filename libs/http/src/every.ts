/** A task repeated on a timer until stopped. */
export interface Repeating {
  /** Cancels the runs not yet started and resolves once the one under way (if any) has finished. */
  stop(): Promise<void>;
  /**
   * Runs the task now, or right after the run under way, beside its pace: for work the caller knows
   * is due (a retry it scheduled itself), which the loop would otherwise find only at its next run.
   */
  runSoon(): void;
}

export interface EveryOptions {
  /** Told of each failure of the task; the loop goes on with the next run. */
  onError: (error: unknown) => void;
  /** How long before the first run: intervalMs unless given. */
  firstRunAfterMs?: number;
  /**
   * `fixed-rate` (the default): a run starts every intervalMs, and a run due while the previous
   * one is still going is skipped. `rest-between-runs`: the next run starts intervalMs after the
   * previous one has finished, so a slow run pushes the following ones back.
   */
  pace?: 'fixed-rate' | 'rest-between-runs';
}

/**
 * What a task resolves to when it left work it could do now (it took a full batch of what was
 * due): the next run starts at once, at either pace, instead of after intervalMs.
 */
export const RUN_AGAIN_NOW = Symbol('run again now');

/**
 * Runs `task` every `intervalMs` until `stop()`: never two runs of it at once, its failures handed
 * to `onError` instead of thrown into the timer. The timers never keep the process alive on their
 * own: a service is kept running by its servers and consumers, and stops its loops when it stops.
 */
export function every(intervalMs: number, task: () => Promise<unknown> | void, options: EveryOptions): Repeating {
  const pace = options.pace ?? 'fixed-rate';
  let stopped = false;
  let running: Promise<void> | undefined;
  /** The first run's timer, then (at rest between runs) the next run's. */
  let timeout: NodeJS.Timeout | undefined;
  let interval: NodeJS.Timeout | undefined;
  /** A run asked for at once (RUN_AGAIN_NOW, runSoon). */
  let atOnce: NodeJS.Timeout | undefined;
  let soonAfterRun = false;

  const runAfter = (delayMs: number) => {
    timeout = setTimeout(() => {
      if (pace === 'fixed-rate') {
        interval = setInterval(run, intervalMs);
        interval.unref();
      }
      run();
    }, delayMs);
    timeout.unref();
  };

  const runAtOnce = () => {
    atOnce = setTimeout(run, 0);
    atOnce.unref();
  };

  const run = () => {
    if (stopped || running) return;
    // Whatever started this run, the runs still pending are this one: at rest between runs, the
    // next is scheduled when it ends (a pending one would start a second chain of runs).
    clearTimeout(atOnce);
    if (pace === 'rest-between-runs') clearTimeout(timeout);
    let again = false;
    // Started from a resolved promise, so that a task throwing before its first await is reported too.
    running = Promise.resolve()
      .then(task)
      .then(
        (outcome) => void (again = outcome === RUN_AGAIN_NOW),
        (error: unknown) => options.onError(error),
      )
      .finally(() => {
        running = undefined;
        if (stopped) return;
        if (again || soonAfterRun) {
          soonAfterRun = false;
          runAtOnce();
        } else if (pace === 'rest-between-runs') runAfter(intervalMs);
      });
  };

  runAfter(options.firstRunAfterMs ?? intervalMs);
  return {
    async stop() {
      stopped = true;
      clearTimeout(timeout);
      clearTimeout(atOnce);
      clearInterval(interval);
      await running;
    },
    runSoon() {
      if (stopped) return;
      if (running) soonAfterRun = true;
      else run();
    },
  };
}
