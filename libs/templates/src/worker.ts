import type { FieldError } from '@postbus/errors';
import { compileMjml, mjmlProblems, mjmlReady } from './mjml';
import { sampleContext } from './sample';
import { threadCpuMs, threadId } from './thread-cpu';
import {
  cpuLimitsWithin,
  PreparedTemplate,
  RenderLimitError,
  TemplateSyntaxError,
  warmUp,
  type RenderContext,
  type Rendered,
  type TemplateParts,
  type TemplateProblem,
} from './templates';

/** What a job is doing, in the first cell of its state: the engine names a stopped job by it. */
export const JobPhase = { queued: 0, compile: 1, render: 2, renderAfterCompile: 3 } as const;

/** How a job's phase reads in a limit's name: its time and memory are the whole job's. */
export const phaseName = (phase: number): string =>
  phase === JobPhase.compile ? 'compile' : phase === JobPhase.renderAfterCompile ? 'compile and render' : 'render';

/** A job for a worker thread of TemplateEngine's pool. */
export interface PoolTask {
  /** render: `context`; sample: sampleContext() (a template measured when it is saved). */
  op: 'render' | 'sample';
  /** The template's identity (id and version, or a digest of a draft): its compiled form is kept under it. */
  key: string;
  parts: TemplateParts;
  context?: RenderContext;
  /** How long the job may take; the engine stops the thread a little after. */
  limitMs: number;
  /**
   * Int32 cells over shared memory, written by the worker as the job starts and goes on: [JobPhase,
   * 1 + ms from `queuedAt` to the job's start (0: not started), the thread's id in /proc (0: none),
   * the thread's CPU ms at the start (modulo 2³²)].
   */
  state: SharedArrayBuffer;
  queuedAt: number;
}

/** A job's answer; its times are the thread's CPU time where the platform says it. */
export type PoolAnswer =
  | { ok: true; rendered?: Rendered; compileMs: number; renderMs: number }
  | { ok: false; kind: 'limit' | 'error'; phase: 'compile' | 'render'; message: string }
  | { ok: false; kind: 'syntax'; phase: 'compile'; message: string; errors: FieldError[]; problems?: TemplateProblem[] };

// Before the first job: its time limit is the tenant's, not the thread's start-up.
warmUp();
const tid = threadId() ?? 0;

// A worker keeps the templates it compiled (each worker compiles a template once); bounded like
// the engine's own cache, and within the worker's memory limit whatever they hold.
const CACHE_LIMIT = 200;
const compiled = new Map<string, PreparedTemplate>();
/** MJML templates (by key) this worker validated: compiled ones only, so bounded with them. */
const validMjml = new Set<string>();

function prepared(key: string, parts: TemplateParts): PreparedTemplate {
  let found = compiled.get(key);
  if (!found) {
    if (compiled.size >= CACHE_LIMIT) {
      compiled.clear();
      validMjml.clear();
    }
    compiled.set(key, (found = new PreparedTemplate(parts)));
  }
  return found;
}

/** An MJML template that does not validate, as a syntax error naming each line (see mjmlProblems). */
async function validateMjml(source: string): Promise<void> {
  const problems = await mjmlProblems(source);
  if (!problems.length) return;
  const at = (line: number | null) => (line === null ? '' : `line ${line}: `);
  const errors = problems.map((p) => ({ pointer: '/html', message: `MJML: ${at(p.line)}${p.message.replace(/^MJML: /, '')}` }));
  throw new TemplateSyntaxError(errors, problems);
}

/** This thread's CPU time (ms), or the wall clock where the platform does not say. */
const clock = (): number => threadCpuMs() ?? performance.now();

/** Runs one job: errors come back as answers, since an Error's class does not survive the trip between threads. */
export default async function runJob(task: PoolTask): Promise<PoolAnswer> {
  const mjml = task.parts.format === 'mjml';
  // Loading mjml is the thread's cost, not the template's, like warmUp() above: done before the
  // job's clock starts (the engine counts from the start written below), on the first MJML job,
  // so a thread that never sees one never loads it.
  if (mjml) await mjmlReady();
  const state = new Int32Array(task.state);
  const started = clock();
  Atomics.store(state, 2, tid);
  Atomics.store(state, 3, Math.round(started) | 0);
  Atomics.store(state, 1, Math.max(1, Date.now() - task.queuedAt + 1));
  const cpuLimits = cpuLimitsWithin(task.limitMs);
  let compiledNow = false;
  const limits = {
    ...cpuLimits,
    overrun: () => new RenderLimitError(`takes more than ${task.limitMs} ms to ${compiledNow ? 'compile and render' : 'render'}`),
  };
  let phase: 'compile' | 'render' = 'compile';
  try {
    const template = prepared(task.key, task.parts);
    if (!template.compiled || (mjml && !validMjml.has(task.key))) {
      Atomics.store(state, 0, JobPhase.compile);
      template.compile();
      if (mjml) {
        await validateMjml(task.parts.html);
        validMjml.add(task.key);
      }
      compiledNow = true;
    }
    const compiledAt = clock();
    phase = 'render';
    Atomics.store(state, 0, compiledNow ? JobPhase.renderAfterCompile : JobPhase.render);
    const sample = task.op === 'sample';
    const context = sample ? sampleContext() : (task.context ?? {});
    const rendered = mjml ? await template.renderThrough(context, limits, sample, compileMjml) : template.render(context, limits, sample);
    return {
      ok: true,
      ...(task.op === 'render' ? { rendered } : {}),
      compileMs: compiledAt - started,
      renderMs: clock() - compiledAt,
    };
  } catch (error) {
    if (error instanceof TemplateSyntaxError) {
      compiled.delete(task.key);
      return { ok: false, kind: 'syntax', phase: 'compile', message: error.message, errors: error.errors, problems: error.problems };
    }
    const message = error instanceof Error ? error.message : String(error);
    return { ok: false, kind: error instanceof RenderLimitError ? 'limit' : 'error', phase, message };
  }
}
