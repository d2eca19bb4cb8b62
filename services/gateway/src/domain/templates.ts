import Handlebars from 'handlebars';
import { convert } from 'html-to-text';
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

/**
 * Renders a template with `{ user, data }`. The HTML escapes every value; the subject and text
 * parts are plain text and do not.
 */
export function render(parts: TemplateParts, context: { user?: unknown; data?: unknown }): Rendered {
  const values = { user: context.user ?? {}, data: context.data ?? {} };
  const html = handlebars.compile(parts.html)(values);
  return {
    subject: handlebars.compile(parts.subject, { noEscape: true })(values).replace(/\s+/g, ' ').trim(),
    html,
    text: parts.text ? handlebars.compile(parts.text, { noEscape: true })(values) : convert(html, { wordwrap: 100 }),
  };
}
