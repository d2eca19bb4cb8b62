import { Script, createContext } from 'node:vm';
import Handlebars from 'handlebars';
import { compile as compileConverter } from 'html-to-text';
import type { FieldError } from '@postbus/errors';

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
 * What one render may cost. Handlebars runs synchronously on the mailer's event loop, so a
 * template looping over a large array (or nesting loops) would hold every tenant's mail: loops
 * are counted and their output measured as they run, and each part's result is measured too.
 */
export const RENDER_LIMITS = { maxIterations: 10_000, maxOutputChars: 2 * 1024 * 1024, maxMilliseconds: 1000 } as const;

/** A render stopped at a limit: the message fails with this reason; a preview answers 422. */
export class RenderLimitError extends Error {
  constructor(what: string) {
    super(`the template ${what}`);
    this.name = 'RenderLimitError';
  }
}

interface Budget {
  iterations: number;
  chars: number;
}

function spend(budget: Budget, iterations: number, chars: number): void {
  budget.iterations += iterations;
  budget.chars += chars;
  if (budget.iterations > RENDER_LIMITS.maxIterations) {
    throw new RenderLimitError(`loops more than ${RENDER_LIMITS.maxIterations} times in one render`);
  }
  if (budget.chars > RENDER_LIMITS.maxOutputChars) {
    throw new RenderLimitError(`renders more than ${RENDER_LIMITS.maxOutputChars / 1024 / 1024} MB`);
  }
}

// What no count can bound (compiling a hostile template, many expressions in every pass) is
// bounded in wall-clock time, generously so that a process starved of CPU does not fail an
// ordinary render. Handlebars runs synchronously, so only V8 can stop it: node:vm's timeout starts
// a watchdog that terminates whatever still runs when it fires, the functions the script calls included.
const watched: { job: () => unknown } = { job: () => undefined };
const watchedContext = createContext(watched);
const runWatched = new Script('job()');

function withinTime<T>(job: () => T, what: string): T {
  watched.job = job;
  try {
    return runWatched.runInContext(watchedContext, { timeout: RENDER_LIMITS.maxMilliseconds }) as T;
  } catch (error) {
    if ((error as { code?: string }).code === 'ERR_SCRIPT_EXECUTION_TIMEOUT') {
      throw new RenderLimitError(`takes more than ${RENDER_LIMITS.maxMilliseconds} ms to ${what}`);
    }
    throw error;
  } finally {
    watched.job = () => undefined;
  }
}

// {{log}} writes whatever a template names to the process's console: never in a tenant's template.
handlebars.unregisterHelper('log');
handlebars.registerHelper('log', () => {
  throw new Error('the {{log}} helper is not available in templates');
});

// Every loop goes through `each` (a {{#list}}…{{/list}} section over an array too): each pass is
// charged to the render's budget, carried in the data frame (@-variables are copied, the object shared).
const builtinEach = handlebars.helpers['each'] as Handlebars.HelperDelegate;
handlebars.registerHelper('each', function (this: unknown, context: unknown, options: Handlebars.HelperOptions) {
  const budget = (options.data as { renderBudget?: Budget } | undefined)?.renderBudget;
  if (!budget) return builtinEach.call(this, context, options) as unknown;
  const pass = (item: unknown, passOptions?: Handlebars.RuntimeOptions): string => {
    spend(budget, 1, 0);
    const out = options.fn(item, passOptions);
    spend(budget, 0, out.length);
    return out;
  };
  return builtinEach.call(this, context, { ...options, fn: Object.assign(pass, options.fn) }) as unknown;
});

/** Where a Handlebars parse error is ("Parse error on line 3: … Expecting …, got …"). */
function describeParseError(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const line = /on line (\d+)/.exec(message)?.[1];
  const expecting = /(Expecting .*|got .*)$/m.exec(message)?.[0];
  const column = /^(-*)\^$/m.exec(message)?.[1]?.length;
  return [line ? `line ${line}` : undefined, column !== undefined ? `column ${column + 1}` : undefined, expecting ?? message.split('\n')[0]]
    .filter(Boolean)
    .join(', ');
}

/** The syntax errors of each part, located (line, column) for the problem body; empty when all parse. */
export function syntaxErrors(parts: TemplateParts): FieldError[] {
  const errors: FieldError[] = [];
  for (const [name, source] of Object.entries(parts)) {
    if (typeof source !== 'string') continue;
    try {
      withinTime(() => handlebars.precompile(source), 'compile');
    } catch (error) {
      const message = error instanceof RenderLimitError ? error.message : `template syntax error: ${describeParseError(error)}`;
      errors.push({ pointer: `/${name}`, message });
    }
  }
  return errors;
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

/**
 * Compiles a template for `{ user, data }`. The HTML escapes every value; the subject and text
 * parts are plain text and do not. Rendering throws on a template error (e.g. a missing partial).
 */
export function compile(parts: TemplateParts): CompiledTemplate {
  const subject = handlebars.compile(parts.subject, { noEscape: true });
  const html = handlebars.compile(parts.html);
  const text = parts.text ? handlebars.compile(parts.text, { noEscape: true }) : undefined;
  // The watchdog costs about as much as a render (node:vm starts a timer thread per run). A
  // template without sections evaluates each expression once, so once compiled (lazily, by the
  // first render, watched) its renders are bounded by the output limit and go unwatched.
  let straightLine: boolean | undefined;
  return (context) => {
    if (straightLine) return renderParts(context);
    return withinTime(() => {
      const rendered = renderParts(context);
      straightLine ??= isStraightLine(parts);
      return rendered;
    }, 'render');
  };
  function renderParts(context: RenderContext): Rendered {
    const budget: Budget = { iterations: 0, chars: 0 };
    const values = { user: charged(context.user ?? {}, budget), data: charged(context.data ?? {}, budget) };
    const options = { data: { renderBudget: budget } };
    const part = (template: HandlebarsTemplateDelegate): string => {
      const out = template(values, options);
      spend(options.data.renderBudget, 0, out.length);
      return out;
    };
    const renderedHtml = part(html);
    return {
      subject: part(subject).replace(/\s+/g, ' ').trim(),
      html: renderedHtml,
      text: text ? part(text) : htmlToText(renderedHtml),
    };
  }
}

/** Compiles and renders once (previews). */
export const render = (parts: TemplateParts, context: RenderContext): Rendered => compile(parts)(context);
