import { join } from 'node:path';
import { Piscina } from 'piscina';

/** One piece of work for a worker thread of a BudgetedPool, as `budgetedTask` receives it. */
export interface BudgetedTask<I> {
  input: I;
  /** One Int32 cell over shared memory: 1 + ms from `queuedAt` to the work's start on its thread (0: not started). */
  state: SharedArrayBuffer;
  queuedAt: number;
}

/** The work took longer than its budget from its start on a thread: the thread was ended. */
export class OverBudgetError extends Error {
  constructor(readonly budgetMs: number) {
    super(`it took more than ${budgetMs} ms`);
    this.name = 'OverBudgetError';
  }
}

/** The work needed more heap than its thread has: the thread ended. */
export class OutOfMemoryError extends Error {
  constructor(readonly memoryMb: number) {
    super(`it needed more than ${memoryMb} MB`);
    this.name = 'OutOfMemoryError';
  }
}

export interface BudgetedPoolOptions {
  /** The worker module: its default export is made with `budgetedTask`. A `.ts` file is loaded through swc (under jest). */
  filename: string;
  /** Worker threads at most: one from the start, the others started when needed and stopped after a minute idle. */
  threads: number;
  /** How long one piece of work may take, from its start on a thread (not its wait for one), before it is abandoned. */
  budgetMs: number;
  /** The old-generation heap of a worker thread (MB); work that needs more ends its thread and is abandoned. */
  memoryMb: number;
}

/** How often work still waiting for a thread (all busy, or one starting) looks again. */
const QUEUED_POLL_MS = 25;

/**
 * Worker threads (piscina) for work on hostile input that must not hold the event loop, each
 * piece within a time and a memory budget. The time counts from the work's start on its thread
 * (which the worker writes to shared memory), so that waiting behind other work is not charged to
 * it; past the budget, or past the heap, its thread is ended (the pool starts another) and `run`
 * rejects with OverBudgetError or OutOfMemoryError. Mail parsers use it: the inbound MX's report
 * reader and the submission service's reader of submitted mail.
 */
export class BudgetedPool<I, R> {
  private readonly pool: Piscina<BudgetedTask<I>, R>;

  constructor(private readonly options: BudgetedPoolOptions) {
    const { filename, threads, memoryMb } = options;
    this.pool = new Piscina<BudgetedTask<I>, R>({
      filename,
      ...(filename.endsWith('.ts') ? { execArgv: ['--require', join(__dirname, 'register-ts.cjs')] } : {}),
      // One thread is kept ready: starting one costs the event loop tens of ms.
      minThreads: 1,
      maxThreads: threads,
      idleTimeout: 60_000,
      concurrentTasksPerWorker: 1,
      resourceLimits: { maxOldGenerationSizeMb: memoryMb },
    });
  }

  get budgetMs(): number {
    return this.options.budgetMs;
  }

  get memoryMb(): number {
    return this.options.memoryMb;
  }

  /** Tells `listener` of a thread that stopped outside any work (it could not start, say). */
  onError(listener: (error: Error) => void): void {
    this.pool.on('error', listener);
  }

  /**
   * The worker's answer for `input`; OverBudgetError or OutOfMemoryError when it passed its
   * budget or its heap, any other error when its thread stopped for another reason.
   */
  async run(input: I): Promise<R> {
    const { budgetMs, memoryMb } = this.options;
    const state = new SharedArrayBuffer(Int32Array.BYTES_PER_ELEMENT);
    const started = new Int32Array(state);
    const queuedAt = Date.now();
    const abort = new AbortController();
    let timer: NodeJS.Timeout;
    const watch = () => {
      const startedAfter = Atomics.load(started, 0);
      if (startedAfter === 0) {
        timer = setTimeout(watch, QUEUED_POLL_MS);
        return;
      }
      const left = budgetMs - (Date.now() - (queuedAt + startedAfter - 1));
      if (left <= 0) abort.abort();
      else timer = setTimeout(watch, left);
    };
    timer = setTimeout(watch, budgetMs);
    try {
      return await this.pool.run({ input, state, queuedAt }, { signal: abort.signal });
    } catch (error) {
      if (abort.signal.aborted) throw new OverBudgetError(budgetMs);
      if ((error as { code?: string }).code === 'ERR_WORKER_OUT_OF_MEMORY') throw new OutOfMemoryError(memoryMb);
      throw error;
    } finally {
      clearTimeout(timer);
    }
  }

  /** Stops the worker threads once their work is done. */
  async close(): Promise<void> {
    await this.pool.close();
  }
}

/** Marks, in a task's shared state, that its work starts now on this thread: its budget counts from here. */
export function markStarted(task: Pick<BudgetedTask<unknown>, 'state' | 'queuedAt'>): void {
  Atomics.store(new Int32Array(task.state), 0, Math.max(1, Date.now() - task.queuedAt + 1));
}

/**
 * A BudgetedPool worker module's default export: runs `work` on each task's input, its budget
 * counted from the moment `warmUp` (what the thread does once as it starts, e.g. compiling the
 * parser on a sample) has finished.
 */
export function budgetedTask<I, R>(work: (input: I) => R | Promise<R>, warmUp?: Promise<unknown>): (task: BudgetedTask<I>) => Promise<R> {
  return async (task) => {
    await warmUp;
    markStarted(task);
    return work(task.input);
  };
}
