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
export const RENDER_LIMITS = { maxIterations: 10_000, maxOutputChars: 2 * 1024 * 1024 } as const;

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
      handlebars.precompile(source);
    } catch (error) {
      errors.push({ pointer: `/${name}`, message: `template syntax error: ${describeParseError(error)}` });
    }
  }
  return errors;
}

export interface RenderContext {
  user?: unknown;
  data?: unknown;
}

/** A template parsed once, rendered many times. */
export type CompiledTemplate = (context: RenderContext) => Rendered;

/**
 * Compiles a template for `{ user, data }`. The HTML escapes every value; the subject and text
 * parts are plain text and do not. Rendering throws on a template error (e.g. a missing partial).
 */
export function compile(parts: TemplateParts): CompiledTemplate {
  const subject = handlebars.compile(parts.subject, { noEscape: true });
  const html = handlebars.compile(parts.html);
  const text = parts.text ? handlebars.compile(parts.text, { noEscape: true }) : undefined;
  return (context) => {
    const values = { user: context.user ?? {}, data: context.data ?? {} };
    const options = { data: { renderBudget: { iterations: 0, chars: 0 } satisfies Budget } };
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
  };
}

/** Compiles and renders once (previews). */
export const render = (parts: TemplateParts, context: RenderContext): Rendered => compile(parts)(context);
