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
    const renderedHtml = html(values);
    return {
      subject: subject(values).replace(/\s+/g, ' ').trim(),
      html: renderedHtml,
      text: text ? text(values) : htmlToText(renderedHtml),
    };
  };
}

/** Compiles and renders once (previews). */
export const render = (parts: TemplateParts, context: RenderContext): Rendered => compile(parts)(context);
