import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { Piscina } from 'piscina';
import { TenantBusyError, TenantLanes } from './lanes';
import { sampleContext } from './sample';
import { threadCpuMs } from './thread-cpu';
import {
  assertRenderable,
  PreparedTemplate,
  RenderLimitError,
  TemplateSyntaxError,
  WALL_CLOCK_FACTOR,
  warmUp,
  watchedFor,
  type RenderContext,
  type RenderLimits,
  type Rendered,
  type TemplateParts,
} from './templates';
import { JobPhase, phaseName, type PoolAnswer, type PoolTask } from './worker';

export interface TemplateEngineOptions {
  /** Worker threads of the pool at most: one from the start, the others started when needed and stopped after a minute idle. */
  threads: number;
  /** The CPU time one job may use on a worker thread (at most 5× that by the wall clock) before it is stopped. */
  poolTimeMs: number;
  /** The old-generation heap of a worker thread (MB); a job needing more ends its thread. */
  poolMemoryMb: number;
  /** How long a template may hold the caller's event loop before it moves to the pool. */
  inlineMs: number;
  /** Jobs of one tenant in the pool at once; its others wait in its own queue. */
  perTenant: number;
  /** How long a job may wait in its tenant's queue before it is refused (TenantBusyError). */
  maxWaitMs: number;
  /** Told what a worker thread reported outside any job (it stopped on its own, could not start). */
  onWorkerError?: (error: Error) => void;
}

export const ENGINE_DEFAULTS: TemplateEngineOptions = {
  threads: 2,
  poolTimeMs: 1_000,
  poolMemoryMb: 128,
  inlineMs: 50,
  perTenant: 1,
  maxWaitMs: 10_000,
};

/** The TEMPLATE_* settings of a service's configuration, as the gateway and the mailer name them. */
export interface TemplateEngineSettings {
  TEMPLATE_POOL_THREADS: number;
  TEMPLATE_POOL_TIME_MS: number;
  TEMPLATE_POOL_MEMORY_MB: number;
  TEMPLATE_INLINE_MS: number;
  TEMPLATE_POOL_PER_CLIENT: number;
  TEMPLATE_POOL_WAIT_MS: number;
}

/** The engine's options from a service's TEMPLATE_* settings. */
export const engineOptionsFrom = (settings: TemplateEngineSettings): Omit<TemplateEngineOptions, 'onWorkerError'> => ({
  threads: settings.TEMPLATE_POOL_THREADS,
  poolTimeMs: settings.TEMPLATE_POOL_TIME_MS,
  poolMemoryMb: settings.TEMPLATE_POOL_MEMORY_MB,
  inlineMs: settings.TEMPLATE_INLINE_MS,
  perTenant: settings.TEMPLATE_POOL_PER_CLIENT,
  maxWaitMs: settings.TEMPLATE_POOL_WAIT_MS,
});

/** How long one caller waits for a render in the pool (by default, as long as the queue and the limits allow). */
export interface Patience {
  /** How long it may wait for its tenant's turn: 0 not at all (refused at once when the tenant's share is busy). */
  maxWaitMs?: number;
  /**
   * How long it waits in all (its turn, a thread, the job): past it the render is given up with
   * TenantBusyError — one not started yet never runs, one running ends on its thread, its result
   * unused, still holding its tenant's turn. For callers that hold others while they wait (a run of
   * messages waits for its slowest).
   */
  patienceMs?: number;
}

/** A saved template: `cheap` as measured when it was saved (false: known heavy, straight to the pool; absent: not measured). */
export interface EngineTemplate {
  /** Its identity, e.g. `<id>:<version>`: what it compiled to, and where it renders, are kept under it. */
  key: string;
  parts: TemplateParts;
  cheap?: boolean | null;
}

/** What saving a template measured; `cheap` is undefined when the sample render failed for another reason than a limit (e.g. a missing helper). */
export interface Measurement {
  cheap: boolean | undefined;
  /** Compile and sample render, wherever they ran. */
  ms: number;
}

/**
 * Rendered HTML from this length on is rendered in the pool: converting it to text (≈ 0.4 ms per
 * KB) and guarding its links cannot be interrupted. Ordinary mail is a few KB; Gmail clips at 102 KB.
 */
const INLINE_MAX_HTML_CHARS = 64 * 1024;
/** Past the time limit, how long a stopped job's thread has to stop by itself (a render stops at its deadline) before it is terminated. */
const KILL_GRACE_MS = 100;
/** How often a job still waiting for a thread (all busy, or one starting) looks again. */
const QUEUED_POLL_MS = 25;
/** How long a compile that failed at a limit is failed again at once, without running. */
const FAILURE_TTL_MS = 60_000;
/** How long a tenant whose template overran on the caller's thread has its templates not known to be cheap go straight to the pool. */
const HOT_TENANT_MS = 60_000;
/** Worker threads run below the services' own threads, so a heavy template slows itself before anyone else. */
const WORKER_NICE = 10;
/** Overruns on the caller's thread after which a template renders in the pool even when none was clearly its own. */
const MAX_STRIKES = 3;
const CACHE_LIMIT = 1_000;
const POOLED_LIMIT = 10_000;

/** A render on the caller's thread went past its budget: it goes to the pool. */
class MovedToPool extends Error {}

const MOVED = Symbol('moved to the pool');
/** Why a job was taken off the pool's queue: its caller stopped waiting. */
const GAVE_UP = Symbol('given up');

type PoolSuccess = Extract<PoolAnswer, { ok: true }>;

/** The key of an unsaved template: its content (its format and layout included). */
const draftKey = (parts: TemplateParts): string =>
  `draft:${createHash('sha256')
    .update(
      JSON.stringify([
        parts.subject,
        parts.html,
        parts.text ?? null,
        parts.format ?? 'handlebars',
        parts.layout ? [parts.layout.html, parts.layout.text ?? null] : null,
      ]),
    )
    .digest('base64url')}`;

/**
 * Renders tenants' templates without letting any of them hold the caller's event loop for more
 * than `inlineMs`:
 * - a template renders on the caller's thread first, within a deadline of `inlineMs` (its compile
 *   watched by node:vm, its render checking the clock as it loops and calls helpers); one that
 *   passes it (by using the CPU, not by waiting for it on a busy machine) is rendered again in the
 *   pool, and stays there for the life of the process — so
 *   ordinary templates never pay for a thread hop, and a heavy one holds the loop once (and for a
 *   minute after, that tenant's templates not measured cheap go straight to the pool, so a stream of
 *   new heavy drafts or versions does not hold it once each);
 * - in the pool (piscina worker threads, below the services' priority) a job has `poolTimeMs` and
 *   `poolMemoryMb`: a render stops at its deadline with a RenderLimitError naming the limit; what
 *   cannot be interrupted (compiling) ends the thread, which the pool replaces, and is named too;
 * - each tenant has `perTenant` jobs in the pool at once, the others in its own queue, so one
 *   tenant's heavy templates wait behind each other, not in front of everyone else's;
 * - an MJML template (`format: 'mjml'`) always renders in the pool: Handlebars renders its MJML
 *   (escaping values), then mjml compiles it, within the same limits.
 */
export class TemplateEngine {
  /** Renders done so far on the caller's thread and in the pool, and jobs sent to the pool (whatever came of them). */
  readonly stats = { onThisThread: 0, inPool: 0, poolJobs: 0 };
  private readonly options: TemplateEngineOptions;
  private readonly pool: Piscina<PoolTask, PoolAnswer>;
  private readonly lanes: TenantLanes;
  /** Templates compiled on this thread. */
  private readonly inline = new Map<string, PreparedTemplate>();
  /** Templates rendered in the pool from now on. */
  private readonly pooled = new Set<string>();
  /** Templates whose overrun on this thread could not be told their own yet, and how many times. */
  private readonly strikes = new Map<string, number>();
  /** Templates whose compile failed at a limit or a syntax error, failed again at once for a while. */
  private readonly failures = new Map<string, { error: Error; until: number }>();
  /**
   * Tenants whose template overran on this thread lately, until when: each new draft or version
   * would hold the loop once more, so theirs go straight to the pool unless measured cheap.
   */
  private readonly hot = new Map<string, number>();

  constructor(options: Partial<TemplateEngineOptions> = {}) {
    this.options = { ...ENGINE_DEFAULTS, ...options };
    const { threads, poolMemoryMb, perTenant, maxWaitMs, onWorkerError } = this.options;
    // From TypeScript (jest), the workers load the source as jest does; built, the compiled worker.
    const fromSource = __filename.endsWith('.ts');
    this.pool = new Piscina<PoolTask, PoolAnswer>({
      filename: join(__dirname, fromSource ? 'worker.ts' : 'worker.js'),
      ...(fromSource ? { execArgv: ['--require', join(__dirname, 'register-ts.cjs')] } : {}),
      // One thread is kept ready: the process's first worker costs its event loop tens of ms to start.
      minThreads: 1,
      maxThreads: threads,
      idleTimeout: 60_000,
      concurrentTasksPerWorker: 1,
      niceIncrement: WORKER_NICE,
      resourceLimits: { maxOldGenerationSizeMb: poolMemoryMb },
    });
    this.pool.on('error', (error: Error) => onWorkerError?.(error));
    this.lanes = new TenantLanes(perTenant, maxWaitMs);
    warmUp();
  }

  /**
   * Renders a saved template for `tenant` (whose pool jobs queue behind each other), waiting for a
   * pool render as `patience` says. Throws RenderLimitError (a limit, named), TemplateSyntaxError,
   * TenantBusyError (not rendered in the time it was given), or the template's own error (e.g. a
   * missing helper).
   */
  async render(template: EngineTemplate, context: RenderContext, tenant: string, patience: Patience = {}): Promise<Rendered> {
    assertRenderable(template.parts);
    this.throwIfFailed(template.key);
    if (this.onThisThreadFirst(template, tenant)) {
      const done = this.onThisThread(template.key, template.parts, tenant, (prepared, limits) => prepared.render(context, limits));
      if (done !== MOVED) {
        this.stats.onThisThread++;
        return done;
      }
    }
    const answer = await this.inPool(tenant, { op: 'render', key: template.key, parts: template.parts, context }, patience);
    this.stats.inPool++;
    return answer.rendered!;
  }

  /** Renders an unsaved template (the editor's live preview): as render(), keyed by its content. */
  preview(parts: TemplateParts, context: RenderContext, tenant: string): Promise<Rendered> {
    return this.render({ key: draftKey(parts), parts }, context, tenant);
  }

  /**
   * Measures a template about to be saved: compiled and rendered with sampleContext() (every value
   * present, every list of SAMPLE_LIST_ITEMS items). Cheap when that fits in `inlineMs` on this
   * thread (or took less than half of it in the pool); an MJML template is never cheap (it
   * renders in the pool only) and is validated too. Throws TemplateSyntaxError (an MJML one's
   * with its `problems`, located), or RenderLimitError when it does not fit the pool's limits.
   */
  async measure(parts: TemplateParts, tenant: string): Promise<Measurement> {
    assertRenderable(parts);
    const key = draftKey(parts);
    this.throwIfFailed(key);
    const started = performance.now();
    try {
      if (this.onThisThreadFirst({ key, parts }, tenant)) {
        const done = this.onThisThread(key, parts, tenant, (prepared, limits) => prepared.render(sampleContext(), limits, true));
        if (done !== MOVED) return { cheap: true, ms: performance.now() - started };
      }
      // On this thread it overran: a heavy template, or a busy machine that did not give it the CPU.
      // The time the pool took tells which.
      const answer = await this.inPool(tenant, { op: 'sample', key, parts });
      const ms = answer.compileMs + answer.renderMs;
      return { cheap: parts.format !== 'mjml' && ms < this.options.inlineMs / 2, ms };
    } catch (error) {
      if (error instanceof RenderLimitError || error instanceof TemplateSyntaxError) throw error;
      return { cheap: undefined, ms: performance.now() - started };
    }
  }

  /** Whether a template (by key) renders in the pool in this process. */
  inPoolFromNowOn(key: string): boolean {
    return this.pooled.has(key);
  }

  /** Pool jobs of `tenant` running or waiting. */
  queued(tenant: string): number {
    return this.lanes.load(tenant);
  }

  /** Stops the worker threads once their jobs are done. */
  async close(): Promise<void> {
    await this.pool.close();
  }

  private onThisThreadFirst(template: EngineTemplate, tenant: string): boolean {
    // mjml is loaded by the pool's threads only, and its compile cannot be interrupted.
    if (template.parts.format === 'mjml') return false;
    if (template.cheap === false || this.pooled.has(template.key)) return false;
    if (template.cheap === true) return true;
    const until = this.hot.get(tenant);
    if (until === undefined) return true;
    if (until > Date.now()) return false;
    this.hot.delete(tenant);
    return true;
  }

  /** `job` on this thread within inlineMs; MOVED (and the template marked for the pool) when it would take longer. */
  private onThisThread(
    key: string,
    parts: TemplateParts,
    tenant: string,
    job: (prepared: PreparedTemplate, limits: RenderLimits) => Rendered,
  ): Rendered | typeof MOVED {
    const { inlineMs } = this.options;
    const limits: RenderLimits = {
      deadline: performance.now() + inlineMs,
      overrun: () => new MovedToPool(),
      maxHtmlChars: INLINE_MAX_HTML_CHARS,
    };
    // The thread's CPU time is read (tens of µs) at a template's first render, and at the next one
    // after an overrun that could not be told the template's; never on the ordinary path.
    let prepared = this.inline.get(key);
    const cpuAtStart = !prepared || this.strikes.has(key) ? threadCpuMs() : undefined;
    try {
      if (!prepared) {
        const fresh = new PreparedTemplate(parts);
        watchedFor(
          () => fresh.compile(),
          inlineMs,
          () => new MovedToPool(),
        );
        if (this.inline.size >= CACHE_LIMIT) this.inline.clear();
        this.inline.set(key, (prepared = fresh));
      }
      return job(prepared, limits);
    } catch (error) {
      if (!(error instanceof MovedToPool)) {
        if (error instanceof TemplateSyntaxError) this.fail(key, error);
        throw error;
      }
      // This render goes to the pool. The template stays there when the overrun was its own: the
      // thread used at least half the budget of CPU meanwhile. A render stopped after less (the
      // machine kept the thread waiting), or whose start was not timed, tries here again next time,
      // timed — MAX_STRIKES times at most.
      const cpuUsed = cpuAtStart === undefined ? undefined : (threadCpuMs() ?? Infinity) - cpuAtStart;
      const strikes = (this.strikes.get(key) ?? 0) + 1;
      if ((cpuUsed !== undefined && cpuUsed >= inlineMs / 2) || strikes >= MAX_STRIKES) {
        this.strikes.delete(key);
        this.inline.delete(key);
        if (this.pooled.size >= POOLED_LIMIT) this.pooled.clear();
        this.pooled.add(key);
        if (this.hot.size >= CACHE_LIMIT) this.hot.clear();
        this.hot.set(tenant, Date.now() + HOT_TENANT_MS);
      } else {
        if (this.strikes.size >= CACHE_LIMIT) this.strikes.clear();
        this.strikes.set(key, strikes);
      }
      return MOVED;
    }
  }

  private inPool(tenant: string, task: Pick<PoolTask, 'op' | 'key' | 'parts' | 'context'>, patience: Patience = {}): Promise<PoolSuccess> {
    const { patienceMs, maxWaitMs = this.options.maxWaitMs } = patience;
    if (patienceMs === undefined) return this.lanes.run(tenant, () => this.runJob(task), maxWaitMs);
    const giveUp = new AbortController();
    const job = this.lanes.run(tenant, () => this.runJob(task, giveUp.signal), Math.min(maxWaitMs, patienceMs));
    return new Promise<PoolSuccess>((resolve, reject: (error: Error) => void) => {
      const timer = setTimeout(() => {
        giveUp.abort();
        reject(
          new TenantBusyError(`the client's heavy templates (or a busy machine) kept this render from finishing within ${patienceMs} ms`),
        );
      }, patienceMs);
      job.then(
        (answer) => {
          clearTimeout(timer);
          resolve(answer);
        },
        (error: Error) => {
          clearTimeout(timer);
          reject(error);
        },
      );
    });
  }

  /** One job on a thread of the pool; `giveUp`: its caller stopped waiting (a job not started yet is taken off the pool's queue). */
  private async runJob(task: Pick<PoolTask, 'op' | 'key' | 'parts' | 'context'>, giveUp?: AbortSignal): Promise<PoolSuccess> {
    this.throwIfFailed(task.key); // a job of the same template ahead of this one may have failed its compile
    const { poolTimeMs, poolMemoryMb } = this.options;
    const state = new SharedArrayBuffer(4 * Int32Array.BYTES_PER_ELEMENT);
    const cells = new Int32Array(state);
    const queuedAt = Date.now();
    const abort = new AbortController();
    // The time limit counts from the job's start on its thread, not from its wait for one, and it
    // is CPU time: the thread's, read from /proc once the wall clock says the time may be up.
    let timer: NodeJS.Timeout;
    const watch = () => {
      const startedAfter = Atomics.load(cells, 1);
      if (startedAfter === 0) {
        timer = setTimeout(watch, QUEUED_POLL_MS);
        return;
      }
      const limit = poolTimeMs + KILL_GRACE_MS;
      const ran = Date.now() - (queuedAt + startedAfter - 1);
      let left = limit - ran;
      const tid = Atomics.load(cells, 2);
      const cpu = left <= 0 && tid !== 0 ? threadCpuMs(tid) : undefined;
      if (cpu !== undefined)
        left = Math.min(limit - ((Math.round(cpu) - Atomics.load(cells, 3)) | 0), poolTimeMs * WALL_CLOCK_FACTOR - ran);
      if (left <= 0) abort.abort();
      else timer = setTimeout(watch, left);
    };
    timer = setTimeout(watch, poolTimeMs);
    giveUp?.addEventListener(
      'abort',
      () => {
        if (Atomics.load(cells, 1) === 0) abort.abort(GAVE_UP);
      },
      { once: true },
    );
    let answer: PoolAnswer;
    this.stats.poolJobs++;
    try {
      answer = await this.pool.run({ ...task, limitMs: poolTimeMs, state, queuedAt }, { signal: abort.signal });
    } catch (error) {
      const phase = Atomics.load(cells, 0);
      let stopped: Error;
      if (abort.signal.reason === GAVE_UP) throw new TenantBusyError('the render was given up before it started');
      if (abort.signal.aborted) stopped = new RenderLimitError(`takes more than ${poolTimeMs} ms to ${phaseName(phase)}`);
      else if ((error as { code?: string }).code === 'ERR_WORKER_OUT_OF_MEMORY')
        stopped = new RenderLimitError(`needs more than ${poolMemoryMb} MB to ${phaseName(phase)}`);
      else throw new Error(`the template's worker thread stopped: ${(error as Error).message}`, { cause: error });
      if (phase === JobPhase.compile) this.fail(task.key, stopped);
      throw stopped;
    } finally {
      clearTimeout(timer);
    }
    if (answer.ok) return answer;
    if (answer.kind === 'syntax') throw this.fail(task.key, new TemplateSyntaxError(answer.errors, answer.problems));
    if (answer.kind === 'error') throw new Error(answer.message);
    const limit = new RenderLimitError(answer.message.replace(/^the template /, ''));
    if (answer.phase === 'compile') this.fail(task.key, limit);
    throw limit;
  }

  private fail(key: string, error: Error): Error {
    if (this.failures.size >= CACHE_LIMIT) this.failures.clear();
    this.failures.set(key, { error, until: Date.now() + FAILURE_TTL_MS });
    return error;
  }

  private throwIfFailed(key: string): void {
    const failed = this.failures.get(key);
    if (!failed) return;
    if (failed.until > Date.now()) throw failed.error;
    this.failures.delete(key);
  }
}
