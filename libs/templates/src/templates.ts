import { Script, createContext } from 'node:vm';
import Handlebars from 'handlebars';
import { compile as compileConverter } from 'html-to-text';
import type { FieldError } from '@postbus/errors';
import { threadCpuMs } from './thread-cpu';
import { guardUrls } from './url-guard';

/** handlebars: the html part is HTML; mjml: it is MJML, compiled to HTML once Handlebars has rendered it. */
export type TemplateFormat = 'handlebars' | 'mjml';

/** A mail's frame around a template's rendered body, which its `{{{content}}}` receives. */
export interface LayoutParts {
  html: string;
  /** Absent: the template's own text part (when it has one) is not wrapped. */
  text?: string | null;
}

export interface TemplateParts {
  subject: string;
  html: string;
  /** Absent: the text part is derived from the rendered HTML. */
  text?: string | null;
  /** Absent: handlebars. An mjml template renders in TemplateEngine's pool only (mjml compiles asynchronously). */
  format?: TemplateFormat;
  /** The layout the rendered html (and text) goes into; none for an mjml template. */
  layout?: LayoutParts | null;
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

/**
 * A template that does not parse, with where each error is (pointer: the part); `problems`, when
 * given, says the same located (part, line), for a check that reports lines (MJML's do).
 */
export class TemplateSyntaxError extends Error {
  constructor(
    readonly errors: FieldError[],
    readonly problems?: TemplateProblem[],
  ) {
    super(errors.map((e) => `${e.pointer}: ${e.message}`).join('; '));
    this.name = 'TemplateSyntaxError';
  }
}

/** Throws when a template combines what no render supports: a layout around an MJML template. */
export function assertRenderable(parts: TemplateParts): void {
  if (parts.format === 'mjml' && parts.layout) throw new Error('a layout cannot wrap an MJML template');
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

/** What keeps each of `sources` from compiling: located syntax errors, and compiles past RENDER_LIMITS.maxMilliseconds. */
function compileProblems<P extends string>(sources: ReadonlyArray<readonly [P, string | null | undefined]>) {
  const problems: Array<Omit<TemplateProblem, 'part'> & { part: P }> = [];
  for (const [part, source] of sources) {
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

/**
 * The problems of each part that keep it from compiling: syntax errors, located (line and column
 * within the part, from 1) where Handlebars says, and compiles that take longer than
 * RENDER_LIMITS.maxMilliseconds; empty when every part compiles. The template's own parts only
 * (its layout is checked when the layout is saved: layoutProblems).
 */
export function templateProblems(parts: TemplateParts): TemplateProblem[] {
  return compileProblems(PART_NAMES.map((part) => [part, parts[part]] as const));
}

/** What is wrong with one part of a layout: as a template's, or `slot` when `{{{content}}}` is not there exactly once. */
export interface LayoutProblem extends Omit<TemplateProblem, 'part' | 'kind'> {
  part: 'html' | 'text';
  kind: TemplateProblem['kind'] | 'slot';
}

/** Where a layout puts the rendered body. */
const CONTENT_SLOT = /\{\{\{\s*content\s*\}\}\}/g;

/** Line and column (from 1) of `at` in `source`. */
function lineAndColumn(source: string, at: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  for (let i = source.indexOf('\n'); i !== -1 && i < at; i = source.indexOf('\n', i + 1)) {
    line++;
    lineStart = i + 1;
  }
  return { line, column: at - lineStart + 1 };
}

/** The slot problem of a layout part: none when `{{{content}}}` is there once, else where the second one is (or nowhere). */
function slotProblem(part: LayoutProblem['part'], source: string): LayoutProblem | undefined {
  const found = [...source.matchAll(CONTENT_SLOT)];
  if (found.length === 1) return undefined;
  const message = `must contain {{{content}}} exactly once (it does ${found.length === 0 ? 'not' : `${found.length} times`})`;
  const second = found[1]?.index;
  return { part, ...(second === undefined ? { line: null, column: null } : lineAndColumn(source, second)), message, kind: 'slot' };
}

/**
 * What keeps a layout from being saved: each part's compile problems (as templateProblems says
 * them), and a part without `{{{content}}}` exactly once (the html always, the text when given);
 * empty when the layout is fine.
 */
export function layoutProblems(layout: LayoutParts): LayoutProblem[] {
  const problems: LayoutProblem[] = compileProblems([
    ['html', layout.html],
    ['text', layout.text],
  ] as const);
  const htmlSlot = slotProblem('html', layout.html);
  if (htmlSlot) problems.push(htmlSlot);
  const textSlot = layout.text ? slotProblem('text', layout.text) : undefined;
  if (textSlot) problems.push(textSlot);
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
  return [parts.subject, parts.html, parts.text, parts.layout?.html, parts.layout?.text].every((source) => {
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

/** Where each compiled source goes: a template's parts, and its layout's. */
type Slot = PartName | 'layoutHtml' | 'layoutText';

/** What a template compiles to: its own parts, and its layout's unless they were compiled with the body in them. */
type CompiledParts = Partial<Record<Slot, HandlebarsTemplateDelegate>>;

/** Counts a program's reads of `content` (`{{content}}`, `{{{content}}}`, `{{#if content}}`, `@root.content`…), at any depth. */
class ContentReads extends Handlebars.Visitor {
  count = 0;

  override PathExpression(path: hbs.AST.PathExpression): void {
    const [head, next] = path.parts;
    if (path.data ? head === 'root' && next === 'content' : head === 'content') this.count++;
  }
}

const isContentSlot = (statement: hbs.AST.Statement): boolean => {
  if (statement.type !== 'MustacheStatement') return false;
  const mustache = statement as hbs.AST.MustacheStatement;
  const path = mustache.path as hbs.AST.PathExpression;
  return (
    !mustache.escaped && mustache.params.length === 0 && !mustache.hash && path.type === 'PathExpression' && path.original === 'content'
  );
};

/**
 * The layout's program with the body's statements in place of its `{{{content}}}`, when that is
 * its only read of `content` and stands at its top level (in no block, so in the root context, as
 * the body renders); undefined otherwise, the two then rendered one after the other.
 */
function withBodyInSlot(layout: hbs.AST.Program, body: hbs.AST.Program): hbs.AST.Program | undefined {
  const reads = new ContentReads();
  reads.accept(layout);
  const slot = layout.body.findIndex(isContentSlot);
  if (reads.count !== 1 || slot === -1) return undefined;
  return { ...layout, body: [...layout.body.slice(0, slot), ...body.body, ...layout.body.slice(slot + 1)] };
}

/** Each source a template compiles: where its compiled form goes, the pointer its errors name, whether it writes HTML. */
const sourcesOf = (parts: TemplateParts) =>
  [
    { slot: 'subject', pointer: '/subject', source: parts.subject, html: false },
    { slot: 'html', pointer: '/html', source: parts.html, html: true },
    { slot: 'text', pointer: '/text', source: parts.text, html: false },
    { slot: 'layoutHtml', pointer: '/layout/html', source: parts.layout?.html, html: true },
    { slot: 'layoutText', pointer: '/layout/text', source: parts.layout?.text, html: false },
  ] as const;

const MJML_IS_ASYNCHRONOUS = 'an MJML template compiles asynchronously: TemplateEngine renders it, in its pool';

/**
 * A template whose parts (and its layout's) are parsed and compiled once (compile()), then
 * rendered many times within the limits each render is given. The HTML escapes every value and
 * keeps only safe URL schemes in its links (see guardUrls); the subject and text parts are plain
 * text. With a layout, the rendered html goes into the layout's html (`{{{content}}}`), the
 * rendered text into the layout's text when both have one.
 */
export class PreparedTemplate {
  private parts: CompiledParts | undefined;
  private failure: TemplateSyntaxError | undefined;

  /** Throws when the parts combine what no render supports (see assertRenderable). */
  constructor(readonly source: TemplateParts) {
    assertRenderable(source);
  }

  get compiled(): boolean {
    return this.parts !== undefined;
  }

  /**
   * Parses and compiles every part; a template that does not (a syntax error, or a construct the
   * compiler refuses) throws TemplateSyntaxError naming each part (`/layout/html` for the
   * layout's), line and column. Compiling is not counted nor checked against the deadline: the
   * caller bounds it (see watchedFor).
   */
  compile(): void {
    if (this.failure) throw this.failure;
    if (this.parts) return;
    const errors: FieldError[] = [];
    const located = (pointer: string, source: string, error: unknown): FieldError => ({
      pointer,
      message: `template syntax error: ${describeLocated(locateParseError(source, error))}`,
    });
    const parsed = new Map<Slot, { pointer: string; source: string; html: boolean; ast: hbs.AST.Program }>();
    for (const { slot, pointer, source, html } of sourcesOf(this.source)) {
      if (typeof source !== 'string' || (!html && slot !== 'subject' && !source)) continue;
      try {
        parsed.set(slot, { pointer, source, html, ast: handlebars.parse(source) });
      } catch (error) {
        errors.push(located(pointer, source, error));
      }
    }
    if (errors.length) throw (this.failure = new TemplateSyntaxError(errors));
    const parts: CompiledParts = {};
    const options = (html: boolean): CompileOptions => (html ? {} : { noEscape: true });
    // A body and its layout compiled as one template (the body's statements in the slot's place)
    // render as one: the layout costs a mail no second render and no copy of the body. Should
    // that compile fail, each compiles apart below, which says where the error is.
    for (const [bodySlot, frameSlot] of [
      ['html', 'layoutHtml'],
      ['text', 'layoutText'],
    ] as const) {
      const body = parsed.get(bodySlot);
      const frame = parsed.get(frameSlot);
      const merged = body && frame ? withBodyInSlot(frame.ast, body.ast) : undefined;
      if (!merged) continue;
      try {
        parts[bodySlot] = compileNow(merged, options(body!.html));
        parsed.delete(bodySlot);
        parsed.delete(frameSlot);
      } catch {
        continue;
      }
    }
    for (const [slot, { pointer, source, html, ast }] of parsed) {
      try {
        parts[slot] = compileNow(ast, options(html));
      } catch (error) {
        errors.push(located(pointer, source, error));
      }
    }
    if (errors.length) throw (this.failure = new TemplateSyntaxError(errors));
    this.parts = parts;
  }

  /**
   * Renders `{ user, data }`, compiling first if need be; `sample`: a context of sampleContext(),
   * used as it is. A Handlebars template only (an MJML one: renderThrough).
   */
  render(context: RenderContext, limits: RenderLimits, sample = false): Rendered {
    if (this.source.format === 'mjml') throw new Error(MJML_IS_ASYNCHRONOUS);
    this.compile();
    const run = new RenderRun(this.parts!, context, limits, sample);
    return run.finish(run.markup());
  }

  /**
   * Renders as render() does, `toHtml` turning the rendered html part into HTML first (an MJML
   * template's: mjml's compile, which the render's output limit counts too).
   */
  async renderThrough(
    context: RenderContext,
    limits: RenderLimits,
    sample: boolean,
    toHtml: (markup: string) => Promise<string>,
  ): Promise<Rendered> {
    this.compile();
    const run = new RenderRun(this.parts!, context, limits, sample);
    const markup = run.markup();
    const html = await toHtml(markup.html);
    run.charge(html);
    return run.finish({ ...markup, html });
  }
}

/** A render's parts as Handlebars gives them: the html before its links are guarded, the text undefined when it is derived from it. */
interface Markup {
  subject: string;
  html: string;
  text: string | undefined;
}

/** One render of compiled parts: its budget, and the values it reads (their long strings charged unless `asIs`, a sample). */
class RenderRun {
  private readonly budget: Budget;
  private readonly values: { user: unknown; data: unknown };
  private readonly options: Handlebars.RuntimeOptions;

  constructor(
    private readonly parts: CompiledParts,
    context: RenderContext,
    private readonly limits: RenderLimits,
    asIs: boolean,
  ) {
    this.budget = {
      iterations: 0,
      calls: 0,
      chars: 0,
      deadline: limits.deadline,
      overrun: () => limits.overrun('render'),
      extend: limits.extend,
    };
    this.values = asIs
      ? { user: context.user ?? {}, data: context.data ?? {} }
      : { user: charged(context.user ?? {}, this.budget), data: charged(context.data ?? {}, this.budget) };
    this.options = { data: { renderBudget: this.budget } };
  }

  /** Counts `out` against the render's output limit (and looks at the clock). */
  charge(out: string): void {
    spend(this.budget, 0, out.length);
  }

  /** The body's parts, then the layout's with the body's html (text) as its `content`. */
  markup(): Markup {
    const { parts } = this;
    const bodyHtml = this.part(parts.html, this.values);
    const html = parts.layoutHtml ? this.part(parts.layoutHtml, { ...this.values, content: this.slotted(bodyHtml) }) : bodyHtml;
    const subject = this.part(parts.subject, this.values).replace(/\s+/g, ' ').trim();
    const bodyText = parts.text ? this.part(parts.text, this.values) : undefined;
    const text =
      bodyText !== undefined && parts.layoutText
        ? this.part(parts.layoutText, { ...this.values, content: this.slotted(bodyText) })
        : bodyText;
    return { subject, html, text };
  }

  /** The final HTML with its links guarded, and the text derived from it when the template has none. */
  finish(markup: Markup): Rendered {
    if (this.limits.maxHtmlChars !== undefined && markup.html.length >= this.limits.maxHtmlChars) throw this.budget.overrun();
    const html = guardUrls(markup.html);
    return { subject: markup.subject, html, text: markup.text ?? htmlToText(html) };
  }

  private part(template: HandlebarsTemplateDelegate | undefined, values: object): string {
    if (!template) return '';
    const out = template(values, this.options);
    this.charge(out);
    return out;
  }

  /** The rendered body as a layout's `content`: charged each time it is written when long, as a long value is. */
  private slotted(body: string): unknown {
    return body.length >= CHARGED_STRING_LENGTH ? new ChargedString(body, this.budget) : body;
  }
}

/**
 * Compiles a template for `{ user, data }`. The HTML escapes every value; the subject and text
 * parts are plain text and do not. Rendering throws on a template error (e.g. a missing partial).
 * Synchronous, on the caller's thread: a compile is watched for RENDER_LIMITS.maxMilliseconds, a
 * render stops at that deadline. Services render through TemplateEngine, which keeps their event
 * loop free of any template that takes longer than a few tens of milliseconds.
 */
export function compile(parts: TemplateParts): CompiledTemplate {
  if (parts.format === 'mjml') throw new Error(MJML_IS_ASYNCHRONOUS);
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
