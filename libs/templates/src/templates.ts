import { Script, createContext } from 'node:vm';
import Handlebars from 'handlebars';
import { compile as compileConverter } from 'html-to-text';
import type { FieldError } from '@postbus/errors';
import { threadCpuMs } from './thread-cpu';
import { guardUrls } from './url-guard';

export interface TemplateParts {
  subject: string;
  html: string;
  /** Absent: the text part is derived from the rendered HTML. */
  text?: string | null;
}

export interface Rendered {
  subject: string;
  html: string;
  text: string;
}

// Built once: html-to-text's convert() rebuilds its options on every call (≈ 0.3 ms a message).
const htmlToText = compileConverter({ wordwrap: 100 });

// An environment of our own: helpers or partials registered elsewhere never leak into templates.
const handlebars = Handlebars.create();

/**
 * What one render may cost. Loops and helper calls are counted and the output measured as they
 * run, and each part's result is measured too; the time is bounded by a deadline checked as they
 * run (see RenderLimits) and, for what no count reaches (compiling), by a watchdog or by stopping
 * the worker thread it runs on (see TemplateEngine).
 */
export const RENDER_LIMITS = {
  maxIterations: 10_000,
  /** Every helper and section evaluated (if, unless, each, with, lookup, a missing helper, a {{#section}}). */
  maxHelperCalls: 50_000,
  maxOutputChars: 2 * 1024 * 1024,
  /** The synchronous API's time for a compile, and for a render (TemplateEngine's are its options). */
  maxMilliseconds: 1000,
} as const;

/** A render stopped at a limit: the message fails with this reason; a preview answers 422. */
export class RenderLimitError extends Error {
  constructor(what: string) {
    super(`the template ${what}`);
    this.name = 'RenderLimitError';
  }
}

/** A template that does not parse, with where each error is (pointer: the part). */
export class TemplateSyntaxError extends Error {
  constructor(readonly errors: FieldError[]) {
    super(errors.map((e) => `${e.pointer}: ${e.message}`).join('; '));
    this.name = 'TemplateSyntaxError';
  }
}

/** What a render is doing when it is stopped: compiling the template, or rendering it. */
export type Phase = 'compile' | 'render';

/** Where a render stops besides the counts of RENDER_LIMITS. */
export interface RenderLimits {
  /** performance.now() after which the render stops: checked at every loop pass and every few helper calls. */
  deadline: number;
  /** What stopping at the deadline throws. */
  overrun: (phase: Phase) => Error;
  /** When the deadline passes: a later one if the render has not used its time on the CPU yet (its thread waited for one), else undefined. */
  extend?: () => number | undefined;
  /**
   * Rendered HTML from this length on stops with overrun('render') instead of being converted to
   * text, which no deadline interrupts (≈ 0.4 ms per KB): for renders on a shared event loop.
   */
  maxHtmlChars?: number;
}

interface Budget {
  iterations: number;
  calls: number;
  chars: number;
  deadline: number;
  overrun: () => Error;
  extend: (() => number | undefined) | undefined;
}

function spend(budget: Budget, iterations: number, chars: number, calls = 0): void {
  budget.iterations += iterations;
  budget.chars += chars;
  budget.calls += calls;
  if (budget.iterations > RENDER_LIMITS.maxIterations) {
    throw new RenderLimitError(`loops more than ${RENDER_LIMITS.maxIterations} times in one render`);
  }
  if (budget.calls > RENDER_LIMITS.maxHelperCalls) {
    throw new RenderLimitError(`evaluates more than ${RENDER_LIMITS.maxHelperCalls} helpers and sections in one render`);
  }
  if (budget.chars > RENDER_LIMITS.maxOutputChars) {
    throw new RenderLimitError(`renders more than ${RENDER_LIMITS.maxOutputChars / 1024 / 1024} MB`);
  }
  // A clock read costs about a helper call's tenth: at every pass and output, every 16th call.
  if ((iterations > 0 || chars > 0 || (budget.calls & 15) === 0) && performance.now() > budget.deadline) {
    const later = budget.extend?.();
    if (later === undefined) throw budget.overrun();
    budget.deadline = later;
  }
}

// Compiling cannot be counted: Handlebars runs it synchronously, so only V8 can stop it. node:vm's
// timeout starts a watchdog that terminates whatever still runs when it fires, the functions the
// script calls included. It costs about as much as a small render (a timer thread per run), so it
// watches compiles only, once per template.
const watched: { job: () => unknown } = { job: () => undefined };
const watchedContext = createContext(watched);
const runWatched = new Script('job()');

function withinTime<T>(job: () => T, ms: number, overrun: () => Error): T {
  watched.job = job;
  try {
    return runWatched.runInContext(watchedContext, { timeout: Math.max(1, Math.ceil(ms)) }) as T;
  } catch (error) {
    if ((error as { code?: string }).code === 'ERR_SCRIPT_EXECUTION_TIMEOUT') throw overrun();
    throw error;
  } finally {
    watched.job = () => undefined;
  }
}

/** Runs `job` (a compile) within `ms` of wall-clock time, throwing `overrun()` when it takes longer. */
export const watchedFor = withinTime;

const tookTooLong = (ms: number) => (phase: Phase) => new RenderLimitError(`takes more than ${ms} ms to ${phase}`);

/** Limits of a render that may take `ms` from now (wall clock), stopped by a RenderLimitError naming them. */
export const limitsWithin = (ms: number): RenderLimits => ({ deadline: performance.now() + ms, overrun: tookTooLong(ms) });

/** How much longer than its CPU limit a job may take by the wall clock, waiting for a busy machine's CPU. */
export const WALL_CLOCK_FACTOR = 5;

/**
 * Limits of a job that may use `ms` of this thread's CPU time (wall clock where the platform does
 * not say; at most WALL_CLOCK_FACTOR × `ms` by the wall clock either way), stopped by a
 * RenderLimitError naming them. Reads the thread's CPU time now and whenever the deadline passes.
 */
export function cpuLimitsWithin(ms: number): RenderLimits {
  const started = performance.now();
  const cpuAtStart = threadCpuMs();
  if (cpuAtStart === undefined) return limitsWithin(ms);
  return {
    deadline: started + ms,
    overrun: tookTooLong(ms),
    extend: () => {
      const now = performance.now();
      const used = (threadCpuMs() ?? Infinity) - cpuAtStart;
      if (used >= ms || now - started >= ms * WALL_CLOCK_FACTOR) return undefined;
      return Math.min(now + (ms - used), started + ms * WALL_CLOCK_FACTOR);
    },
  };
}

// {{log}} writes whatever a template names to the process's console: never in a tenant's template.
handlebars.unregisterHelper('log');
handlebars.registerHelper('log', () => {
  throw new Error('the {{log}} helper is not available in templates');
});

const renderBudget = (options: { data?: unknown } | undefined): Budget | undefined =>
  (options?.data as { renderBudget?: Budget } | undefined)?.renderBudget;

// Every loop goes through `each` (a {{#list}}…{{/list}} section over an array too): each pass is
// charged to the render's budget, carried in the data frame (@-variables are copied, the object shared).
const builtinEach = handlebars.helpers['each'] as Handlebars.HelperDelegate;
handlebars.registerHelper('each', function (this: unknown, context: unknown, options: Handlebars.HelperOptions) {
  const budget = renderBudget(options);
  if (!budget) return builtinEach.call(this, context, options) as unknown;
  const pass = (item: unknown, passOptions?: Handlebars.RuntimeOptions): string => {
    spend(budget, 1, 0);
    const out = options.fn(item, passOptions);
    spend(budget, 0, out.length);
    return out;
  };
  return builtinEach.call(this, context, { ...options, fn: Object.assign(pass, options.fn) }) as unknown;
});

// A loop's cost is also what each pass evaluates: every helper (if, with, lookup, …) and section
// ({{#name}}, through blockHelperMissing; an unknown {{name}}, through helperMissing) is charged one
// call, so nested loops full of conditions stop at a count, not after seconds.
for (const [name, helper] of Object.entries(handlebars.helpers as Record<string, (...args: unknown[]) => unknown>)) {
  handlebars.registerHelper(name, function (this: unknown, ...args: unknown[]) {
    const budget = renderBudget(args[args.length - 1] as { data?: unknown } | undefined);
    if (budget) spend(budget, 0, 0, 1);
    return helper.apply(this, args);
  });
}

const PART_NAMES = ['subject', 'html', 'text'] as const;
export type PartName = (typeof PART_NAMES)[number];

/** What is wrong with one part of a template; line and column count from 1 within the part, null when unknown. */
export interface TemplateProblem {
  part: PartName;
  line: number | null;
  column: number | null;
  message: string;
  /** syntax: it does not parse; limit: it takes too long to compile. */
  kind: 'syntax' | 'limit';
}

/**
 * How Handlebars' parser shows where it stopped: up to 20 characters before (after `...` when
 * there were more) and 20 from there (followed by `...` when the token there is longer), newlines
 * removed.
 */
const EXCERPT = 20;
const shownBefore = (source: string, at: number): string =>
  `${at > EXCERPT ? '...' : ''}${source.slice(Math.max(0, at - EXCERPT), at)}`.replace(/\n/g, '');
const shownFrom = (source: string, at: number): string => source.slice(at, at + EXCERPT).replace(/\n/g, '');

/**
 * The column (from 1) of a parse error on `line` of `source`: the first place on that line where
 * the parser's excerpt (`excerpt`, its marker under character `at`) would read as it does; null
 * when none does. Each place costs a comparison of 40 characters at most: linear in the line.
 */
function columnOf(source: string, line: number, excerpt: string, at: number): number | null {
  const breaks = /\r\n?|\n/g;
  let start = 0;
  for (let n = 1; n < line; n++) {
    if (!breaks.exec(source)) return null;
    start = breaks.lastIndex;
  }
  const end = breaks.exec(source)?.index ?? source.length;
  const before = excerpt.slice(0, at);
  const from = excerpt.slice(at).replace(/\.\.\.$/, '');
  for (let p = start; p <= end; p++) {
    if (from !== '' && source[p] !== from[0] && source[p] !== '\n') continue;
    if (shownFrom(source, p) === from && shownBefore(source, p) === before) return p - start + 1;
  }
  return null;
}

/**
 * Where a Handlebars parse error is and what it expected: from a located exception ("if doesn't
 * match each - 2:7", column from 0) or from the parser's message ("Parse error on line 3:",
 * the excerpt, a `---^` under it, "Expecting …, got …"). The one reader of Handlebars' messages.
 */
function locateParseError(source: string, error: unknown): Pick<TemplateProblem, 'line' | 'column' | 'message'> {
  const message = error instanceof Error ? error.message : String(error);
  const located = error as { lineNumber?: unknown; column?: unknown };
  if (typeof located.lineNumber === 'number') {
    const column = typeof located.column === 'number' ? located.column + 1 : null;
    return { line: located.lineNumber, column, message: message.replace(/ - \d+:\d+$/, '') };
  }
  const line = Number(/on line (\d+)/.exec(message)?.[1]) || null;
  const [, excerpt, marker] = message.split('\n');
  const at = marker !== undefined && /^-*\^$/.test(marker) ? marker.length - 1 : undefined;
  const column = line !== null && excerpt !== undefined && at !== undefined ? columnOf(source, line, excerpt, at) : null;
  const expecting = /(Expecting .*|got .*)$/m.exec(message)?.[0];
  return { line, column, message: expecting ?? message.split('\n')[0] ?? message };
}

/** A located problem as the problem body says it: "line 2, column 5, Expecting …". */
const describeLocated = ({ line, column, message }: Pick<TemplateProblem, 'line' | 'column' | 'message'>): string =>
  [line !== null ? `line ${line}` : undefined, column !== null ? `column ${column}` : undefined, message].filter(Boolean).join(', ');

/**
 * The problems of each part that keep it from compiling: syntax errors, located (line and column
 * within the part, from 1) where Handlebars says, and compiles that take longer than
 * RENDER_LIMITS.maxMilliseconds; empty when every part compiles.
 */
export function templateProblems(parts: TemplateParts): TemplateProblem[] {
  const problems: TemplateProblem[] = [];
  for (const part of PART_NAMES) {
    const source = parts[part];
    if (typeof source !== 'string') continue;
    try {
      withinTime(
        () => handlebars.precompile(source),
        RENDER_LIMITS.maxMilliseconds,
        () => tookTooLong(RENDER_LIMITS.maxMilliseconds)('compile'),
      );
    } catch (error) {
      problems.push(
        error instanceof RenderLimitError
          ? { part, line: null, column: null, message: error.message, kind: 'limit' }
          : { part, ...locateParseError(source, error), kind: 'syntax' },
      );
    }
  }
  return problems;
}

/** The syntax errors of each part, located (line, column) for the problem body; empty when all parse. */
export function syntaxErrors(parts: TemplateParts): FieldError[] {
  return templateProblems(parts).map((problem) => ({
    pointer: `/${problem.part}`,
    message: problem.kind === 'limit' ? problem.message : `template syntax error: ${describeLocated(problem)}`,
  }));
}

export interface RenderContext {
  user?: unknown;
  data?: unknown;
}

/** Statements that run once each: text, `{{expression}}` (helpers without a block included) and comments. */
const STRAIGHT_LINE_STATEMENTS = new Set(['ContentStatement', 'MustacheStatement', 'CommentStatement']);

/**
 * Whether every part of a template is straight-line: no section, loop, partial or decorator, so a
 * render's time grows with the template's length and its output only.
 */
export function isStraightLine(parts: TemplateParts): boolean {
  return [parts.subject, parts.html, parts.text].every((source) => {
    if (typeof source !== 'string') return true;
    try {
      return handlebars.parse(source).body.every((statement) => STRAIGHT_LINE_STATEMENTS.has(statement.type));
    } catch {
      return false; // rendering it reports the syntax error
    }
  });
}

/** A template parsed once, rendered many times. */
export type CompiledTemplate = (context: RenderContext) => Rendered;

/** Strings from this length on are charged to the budget each time a template writes them. */
const CHARGED_STRING_LENGTH = 1024;

/**
 * A long string of the context, charged each time it is written: a template naming one large
 * value thousands of times (no loop needed) stops at the output limit instead of building
 * gigabytes. Handlebars writes an object through toHTML (escaped) or toString (not escaped).
 */
class ChargedString {
  private escaped: string | undefined;

  constructor(
    private readonly value: string,
    private readonly budget: Budget,
  ) {}

  toHTML(): string {
    this.escaped ??= handlebars.Utils.escapeExpression(this.value);
    spend(this.budget, 0, this.escaped.length);
    return this.escaped;
  }

  toString(): string {
    spend(this.budget, 0, this.value.length);
    return this.value;
  }
}

/** A copy of the context whose long strings are charged; nesting is bounded by the gateway (16 levels), and deeper is left alone. */
function charged(value: unknown, budget: Budget, depth = 0): unknown {
  if (typeof value === 'string') return value.length >= CHARGED_STRING_LENGTH ? new ChargedString(value, budget) : value;
  if (value === null || typeof value !== 'object' || depth > 32) return value;
  if (Array.isArray(value)) return value.map((v) => charged(v, budget, depth + 1));
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, charged(v, budget, depth + 1)]));
}

/** Handlebars' own compiler classes, which its typings leave out. */
interface Compilers {
  Compiler: new () => { compile(ast: hbs.AST.Program, options: CompileOptions): unknown };
  JavaScriptCompiler: new () => {
    compile(environment: unknown, options: CompileOptions, context: undefined, asObject: true): TemplateSpecification;
  };
}

/**
 * Compiles a parsed part now, as Handlebars.compile does at a template's first render (the same
 * steps, with its default `data: true`): the compile's time is then apart from any render's.
 */
function compileNow(ast: hbs.AST.Program, options: CompileOptions): HandlebarsTemplateDelegate {
  const compilers = handlebars as unknown as Compilers;
  const withData = { data: true, ...options };
  const environment = new compilers.Compiler().compile(ast, withData);
  return handlebars.template(new compilers.JavaScriptCompiler().compile(environment, withData, undefined, true));
}

type CompiledParts = Partial<Record<PartName, HandlebarsTemplateDelegate>>;

/**
 * A template whose parts are parsed and compiled once (compile()), then rendered many times
 * within the limits each render is given. The HTML escapes every value and keeps only safe URL
 * schemes in its links (see guardUrls); the subject and text parts are plain text.
 */
export class PreparedTemplate {
  private parts: CompiledParts | undefined;
  private failure: TemplateSyntaxError | undefined;

  constructor(readonly source: TemplateParts) {}

  get compiled(): boolean {
    return this.parts !== undefined;
  }

  /**
   * Parses and compiles every part; a template that does not (a syntax error, or a construct the
   * compiler refuses) throws TemplateSyntaxError naming each part, line and column. Compiling is
   * not counted nor checked against the deadline: the caller bounds it (see watchedFor).
   */
  compile(): void {
    if (this.failure) throw this.failure;
    if (this.parts) return;
    const errors: FieldError[] = [];
    const parts: CompiledParts = {};
    for (const name of PART_NAMES) {
      const source = this.source[name];
      if (typeof source !== 'string' || (name === 'text' && !source)) continue;
      try {
        parts[name] = compileNow(handlebars.parse(source), name === 'html' ? {} : { noEscape: true });
      } catch (error) {
        errors.push({ pointer: `/${name}`, message: `template syntax error: ${describeLocated(locateParseError(source, error))}` });
      }
    }
    if (errors.length) throw (this.failure = new TemplateSyntaxError(errors));
    this.parts = parts;
  }

  /** Renders `{ user, data }`, compiling first if need be; `sample`: a context of sampleContext(), used as it is. */
  render(context: RenderContext, limits: RenderLimits, sample = false): Rendered {
    this.compile();
    return renderParts(this.parts!, context, limits, sample);
  }
}

/** One render of compiled parts; `asIs`: the context is used without charging its long strings (a sample). */
function renderParts(parts: CompiledParts, context: RenderContext, limits: RenderLimits, asIs: boolean): Rendered {
  const budget: Budget = {
    iterations: 0,
    calls: 0,
    chars: 0,
    deadline: limits.deadline,
    overrun: () => limits.overrun('render'),
    extend: limits.extend,
  };
  const values = asIs
    ? { user: context.user ?? {}, data: context.data ?? {} }
    : { user: charged(context.user ?? {}, budget), data: charged(context.data ?? {}, budget) };
  const options = { data: { renderBudget: budget } };
  const part = (template: HandlebarsTemplateDelegate | undefined): string => {
    if (!template) return '';
    const out = template(values, options);
    spend(budget, 0, out.length);
    return out;
  };
  const rawHtml = part(parts.html);
  if (limits.maxHtmlChars !== undefined && rawHtml.length >= limits.maxHtmlChars) throw budget.overrun();
  const html = guardUrls(rawHtml);
  return {
    subject: part(parts.subject).replace(/\s+/g, ' ').trim(),
    html,
    text: parts.text ? part(parts.text) : htmlToText(html),
  };
}

/**
 * Compiles a template for `{ user, data }`. The HTML escapes every value; the subject and text
 * parts are plain text and do not. Rendering throws on a template error (e.g. a missing partial).
 * Synchronous, on the caller's thread: a compile is watched for RENDER_LIMITS.maxMilliseconds, a
 * render stops at that deadline. Services render through TemplateEngine, which keeps their event
 * loop free of any template that takes longer than a few tens of milliseconds.
 */
export function compile(parts: TemplateParts): CompiledTemplate {
  const prepared = new PreparedTemplate(parts);
  return (context) => {
    if (!prepared.compiled) {
      withinTime(
        () => prepared.compile(),
        RENDER_LIMITS.maxMilliseconds,
        () => tookTooLong(RENDER_LIMITS.maxMilliseconds)('compile'),
      );
    }
    return prepared.render(context, limitsWithin(RENDER_LIMITS.maxMilliseconds));
  };
}

/** Compiles and renders once (previews). */
export const render = (parts: TemplateParts, context: RenderContext): Rendered => compile(parts)(context);

/**
 * Renders a small template using each helper, a link and a derived text part once: the first
 * compile and render of a process load and optimise Handlebars' compiler, html-to-text and the
 * link guard (≈ 70 ms, ten times an ordinary compile), which would otherwise count against the
 * first tenant's budget. Run once at start, where that time is nobody's.
 */
export function warmUp(): void {
  const template = new PreparedTemplate({
    subject: 'Hello {{user.name}}',
    html: '<p>{{#if data.items}}{{#each data.items}}<a href="{{url}}">{{lookup this "name"}}</a>{{/each}}{{/if}}{{#with user}}{{name}}{{/with}}{{#unless data.none}}!{{/unless}}</p>',
  });
  const items = [{ url: 'https://example.com/', name: 'x' }];
  template.render({ user: { name: 'Ann' }, data: { items } }, limitsWithin(RENDER_LIMITS.maxMilliseconds * 10));
}
