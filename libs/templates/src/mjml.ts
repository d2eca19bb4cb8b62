import { createRequire } from 'node:module';
import type { TemplateProblem } from './templates';

/** What mjml says is wrong with an element (the line of its opening tag, from 1). */
interface MjmlError {
  line?: number;
  message: string;
}

/** The options of mjml's compile that Postbus sets: never a file, a config or an include read on a template's behalf. */
interface MjmlOptions {
  validationLevel: 'strict' | 'soft' | 'skip';
  ignoreIncludes: true;
  /**
   * The web fonts mjml links by itself when a font-family names one: none. Its default (Ubuntu,
   * Open Sans, … from Google Fonts) would make every opening of the mail a request to Google, and
   * the panel's frames refuse it; a template that wants a web font declares it (<mj-font>).
   */
  fonts: Record<string, never>;
  minify: false;
  beautify: false;
}

/** mjml 5's compile (its package has no typings): asynchronous, though without minify it does all its work synchronously. */
type Mjml2Html = (mjml: string, options: MjmlOptions) => Promise<{ html: string; errors: MjmlError[] }>;

/**
 * How a render compiles: no validation. The template's structure was validated when it compiled
 * (its mustaches blanked out), and what Handlebars inserts is escaped, so it adds no element
 * (unless the template's author writes a value raw, `{{{…}}}`, by their own choice).
 */
const RENDER: MjmlOptions = { validationLevel: 'skip', ignoreIncludes: true, fonts: {}, minify: false, beautify: false };
const VALIDATE: MjmlOptions = { ...RENDER, validationLevel: 'strict' };

let loaded: Promise<Mjml2Html> | undefined;

/**
 * mjml, loaded (and its first compile run) once per thread, on the first call: services that never
 * render MJML never load it.
 */
export function mjmlReady(): Promise<Mjml2Html> {
  loaded ??= (async () => {
    const mjml2html = createRequire(__filename)('mjml') as Mjml2Html;
    await mjml2html('<mjml><mj-body><mj-section><mj-column><mj-text>x</mj-text></mj-column></mj-section></mj-body></mjml>', VALIDATE);
    return mjml2html;
  })();
  return loaded;
}

/** Compiles MJML (a rendered template's) to HTML. */
export async function compileMjml(mjml: string): Promise<string> {
  const mjml2html = await mjmlReady();
  return (await mjml2html(mjml, RENDER)).html;
}

/** Where each Handlebars mustache of `source` ends, from the `{{` at `at`: past its closing braces (the end of the source when it has none). */
function mustacheEnd(source: string, at: number): number {
  const comment = source.startsWith('{{!--', at) ? '--}}' : source.startsWith('{{!', at) ? '}}' : undefined;
  if (comment !== undefined) {
    const end = source.indexOf(comment, at + 3);
    return end === -1 ? source.length : end + comment.length;
  }
  const braces = source.startsWith('{{{{', at) ? 4 : source.startsWith('{{{', at) ? 3 : 2;
  for (let i = at + braces; i < source.length; i++) {
    const c = source[i];
    if (c === '"' || c === "'") {
      const close = source.indexOf(c, i + 1);
      if (close === -1) return source.length;
      i = close;
    } else if (c === '}' && source.startsWith('}'.repeat(braces), i)) {
      return i + braces;
    }
  }
  return source.length;
}

const blank = (text: string): string => text.replace(/[^\n]/g, ' ');

/**
 * The MJML of a template with its Handlebars left out, for mjml's validation: each mustache (an
 * expression, a block's opening or closing, a comment) becomes blanks, and an attribute whose
 * value holds one is blanked whole, name and all (its value is only known at a render); newlines
 * stay, so a line mjml names is the template's own. One pass, in linear time.
 */
export function blankMustaches(source: string): string {
  const out: string[] = [];
  let copied = 0;
  let inTag = false;
  /** Inside a tag: where the current attribute's name starts, and the quote its value is in. */
  let attributeStart = -1;
  let quote: string | undefined;
  let templatedValue = false;
  for (let i = 0; i < source.length; i++) {
    const c = source[i]!;
    if (c === '{' && source[i + 1] === '{') {
      const end = mustacheEnd(source, i);
      if (quote !== undefined) templatedValue = true;
      else {
        out.push(source.slice(copied, i), blank(source.slice(i, end)));
        copied = end;
      }
      i = end - 1;
      continue;
    }
    if (!inTag) {
      if (c === '<' && /[a-zA-Z]/.test(source[i + 1] ?? '')) inTag = true;
      continue;
    }
    if (quote !== undefined) {
      if (c !== quote) continue;
      if (templatedValue) {
        out.push(source.slice(copied, attributeStart), blank(source.slice(attributeStart, i + 1)));
        copied = i + 1;
      }
      quote = undefined;
      templatedValue = false;
      attributeStart = -1;
    } else if (c === '"' || c === "'") {
      quote = c;
    } else if (c === '>') {
      inTag = false;
      attributeStart = -1;
    } else if (/[\s/]/.test(c)) {
      attributeStart = -1;
    } else if (attributeStart === -1 && c !== '=') {
      attributeStart = i;
    }
  }
  out.push(source.slice(copied));
  return out.join('');
}

/** Line (from 1) of `at` in `text`. */
const lineAt = (text: string, at: number): number => {
  let line = 1;
  for (let i = text.indexOf('\n'); i !== -1 && i < at; i = text.indexOf('\n', i + 1)) line++;
  return line;
};

/** Unless MJML (blanked) starts with its `<mjml>` root after blanks and comments, the problem of where it does not. */
function rootProblem(mjml: string): TemplateProblem | undefined {
  let at = 0;
  for (;;) {
    while (at < mjml.length && /\s/.test(mjml[at]!)) at++;
    if (!mjml.startsWith('<!--', at)) break;
    const end = mjml.indexOf('-->', at + 4);
    if (end === -1) break;
    at = end + 3;
  }
  if (/^<mjml[\s>]/.test(mjml.slice(at, at + 6))) return undefined;
  return {
    part: 'html',
    line: lineAt(mjml, at),
    column: null,
    message: 'MJML: the template must start with its <mjml> root',
    kind: 'syntax',
  };
}

/**
 * What is wrong with an MJML template (its html part, Handlebars source): it must start with its
 * `<mjml>` root, and pass mjml's strict validation with its mustaches blanked out (see
 * blankMustaches). Each problem names the line in the template's source; empty when it is fine.
 */
export async function mjmlProblems(source: string): Promise<TemplateProblem[]> {
  const mjml = blankMustaches(source);
  const root = rootProblem(mjml);
  if (root) return [root];
  const mjml2html = await mjmlReady();
  try {
    await mjml2html(mjml, VALIDATE);
    return [];
  } catch (error) {
    const found = (error as { errors?: unknown }).errors;
    const errors: MjmlError[] = Array.isArray(found) && found.length ? (found as MjmlError[]) : [{ message: (error as Error).message }];
    return errors.map((e) => ({
      part: 'html',
      line: typeof e.line === 'number' ? e.line : null,
      column: null,
      message: `MJML: ${e.message}`,
      kind: 'syntax',
    }));
  }
}
