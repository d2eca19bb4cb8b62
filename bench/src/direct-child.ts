/**
 * The child's side of `forkChild` (children.ts) for the direct baselines: the protocol (answer
 * `ready`, wait for `go`, answer `result` or `error`), the batch runner, and the measured figures
 * both baselines report.
 */
import { latencyOf, perSecond, type Latency } from './stats';

/** The figures of a measured batch, as both baselines report them. */
export interface BatchFigures {
  sent: number;
  failed: number;
  firstError: string | null;
  durationMs: number;
  /** Successes a second, from the first call to the last answer. */
  rate: number;
  /** Per operation: call to its answer. */
  latencyMs: Latency;
  /** CPU time of this process during the measured run, in ms. */
  cpuMs: { user: number; system: number };
}

export interface Batch {
  /** The latencies of the operations that succeeded. */
  latencies: number[];
  /** When each operation started, by n (0 when it failed). */
  startedAt: number[];
  failed: number;
  firstError: string | null;
}

/** Runs `count` operations, `concurrency` in flight; `now` is the clock of the latencies and start times. */
export async function runBatch(
  count: number,
  concurrency: number,
  one: (n: number) => Promise<void>,
  now: () => number = () => performance.now(),
): Promise<Batch> {
  const latencies: number[] = [];
  const startedAt = new Array<number>(count).fill(0);
  let next = 0;
  let failed = 0;
  let firstError: string | null = null;
  const worker = async () => {
    while (next < count) {
      const n = next++;
      const start = now();
      try {
        await one(n);
        startedAt[n] = start;
        latencies.push(now() - start);
      } catch (error) {
        failed++;
        firstError ??= error instanceof Error ? error.message : String(error);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, count) }, worker));
  return { latencies, startedAt, failed, firstError };
}

/** Runs the measured batch and reports its figures (duration, rate, latencies, this process's CPU). */
export async function measure(
  work: () => Promise<Batch>,
  now: () => number = () => performance.now(),
): Promise<{ batch: Batch; figures: BatchFigures }> {
  const cpuBefore = process.cpuUsage();
  const started = now();
  const batch = await work();
  const durationMs = now() - started;
  const cpu = process.cpuUsage(cpuBefore);
  return {
    batch,
    figures: {
      sent: batch.latencies.length,
      failed: batch.failed,
      firstError: batch.firstError,
      durationMs: Math.round(durationMs),
      rate: perSecond(batch.latencies.length, durationMs),
      latencyMs: latencyOf(batch.latencies),
      cpuMs: { user: Math.round(cpu.user / 1000), system: Math.round(cpu.system / 1000) },
    },
  };
}

/** A message to the parent, resolved once the IPC channel took it. */
export const sendToParent = <M>(message: M): Promise<void> =>
  new Promise<void>((resolve, reject) => process.send!(message, (error: Error | null) => (error ? reject(error) : resolve())));

/** Answers `ready` and resolves on the parent's `go`. */
export async function readyThenGo(): Promise<void> {
  const go = new Promise<void>((resolve) => process.once('message', () => resolve()));
  await sendToParent({ type: 'ready' });
  await go;
}

/** Runs a baseline's main in a child forked with an IPC channel; a failure goes to the parent as `error`. */
export function runForked<O>(file: string, parent: string, main: (options: O) => Promise<void>): void {
  if (!process.send) {
    console.error(`${file} is forked by ${parent} (it needs an IPC channel)`);
    process.exit(2);
  }
  main(JSON.parse(process.argv[2] ?? '{}') as O).then(
    () => process.disconnect(),
    (error: unknown) => {
      const message = error instanceof Error ? error.message : String(error);
      process.send!({ type: 'error', message }, () => process.exit(1));
    },
  );
}
