import { TooManyRequestsError, UnprocessableError, ValidationError, type FieldError } from '@postbus/errors';
import {
  RenderLimitError,
  renderErrorSite,
  SAMPLE_LIST_ITEMS,
  layoutProblems,
  templateProblems,
  TemplateSyntaxError,
  templateVariables,
  TenantBusyError,
  variantFor,
  type RenderContext,
  type Rendered,
  type TemplateEngine,
  type TemplateParts,
  type TemplateProblem,
} from '@postbus/templates';

/** A layout's published version, as a template's save, check or preview reads it. */
export interface LayoutParts {
  id: string;
  version: number;
  html: string;
  text: string | null;
}

/** The layouts of a project, by id: their published versions. */
export interface LayoutLookup {
  published(clientId: string, projectId: string, id: string): Promise<LayoutParts | null>;
}

export interface VariantSource {
  language: string;
  subject: string;
  html: string;
  text: string | null;
  layoutId: string | null;
}

/** A template's content as saved, checked or previewed: its default parts, format, layout and variants. */
export interface TemplateSource {
  subject: string;
  html: string;
  text: string | null;
  format: 'handlebars' | 'mjml';
  layoutId: string | null;
  variants: VariantSource[];
}

/** One language's parts of a template (the default's `at` is ''), with where its fields are in the request. */
interface PartSet {
  /** The JSON pointer of its fields' parent: '' for the default, '/variants/N' for a variant. */
  at: string;
  language: string | null;
  parts: TemplateParts;
  layout: LayoutParts | null;
}

export type TemplateCheckError = { field: string; line: number | null; column: number | null; message: string };

/** The layouts a template names, published versions by id; a missing one is a 422 naming where it is named. */
async function layoutsOf(source: TemplateSource, layouts: LayoutLookup, clientId: string, projectId: string) {
  const named = [{ at: '', id: source.layoutId }, ...source.variants.map((v, i) => ({ at: `/variants/${i}`, id: v.layoutId }))].filter(
    (n): n is { at: string; id: string } => n.id !== null,
  );
  const found = new Map<string, LayoutParts>();
  const missing: FieldError[] = [];
  for (const { at, id } of named) {
    const layout = found.get(id) ?? (await layouts.published(clientId, projectId, id));
    if (layout) found.set(id, layout);
    else missing.push({ pointer: `${at}/layout_id`, message: 'no such layout in this project' });
  }
  return { found, missing };
}

/** The rules of a template's shape that its schema cannot say: unique languages, no layout around MJML. */
function shapeProblems(source: TemplateSource): FieldError[] {
  const problems: FieldError[] = [];
  const seen = new Map<string, number>();
  source.variants.forEach((v, i) => {
    const tag = v.language.toLowerCase();
    const first = seen.get(tag);
    if (first !== undefined) problems.push({ pointer: `/variants/${i}/language`, message: `repeats variants/${first}'s language` });
    else seen.set(tag, i);
  });
  if (source.format === 'mjml') {
    if (source.layoutId !== null)
      problems.push({ pointer: '/layout_id', message: 'an MJML template is a whole document: it takes no layout' });
    source.variants.forEach((v, i) => {
      if (v.layoutId !== null) {
        problems.push({ pointer: `/variants/${i}/layout_id`, message: 'an MJML template is a whole document: it takes no layout' });
      }
    });
  }
  return problems;
}

const partsOf = (
  source: Pick<TemplateSource, 'format'>,
  own: Pick<VariantSource, 'subject' | 'html' | 'text'>,
  layout: LayoutParts | null,
): TemplateParts => ({
  subject: own.subject,
  html: own.html,
  text: own.text,
  ...(source.format === 'mjml' ? { format: 'mjml' as const } : {}),
  ...(layout ? { layout: { html: layout.html, text: layout.text } } : {}),
});

/** The layout a language's parts are sent in: a variant's own, else the template's. */
export const layoutIdOf = (source: Pick<TemplateSource, 'layoutId'>, variant: Pick<VariantSource, 'layoutId'> | null): string | null =>
  variant?.layoutId ?? source.layoutId;

function partSets(source: TemplateSource, layouts: Map<string, LayoutParts>): PartSet[] {
  const layoutOf = (variant: VariantSource | null) => {
    const id = layoutIdOf(source, variant);
    return id === null ? null : (layouts.get(id) ?? null);
  };
  return [
    { at: '', language: null, parts: partsOf(source, source, layoutOf(null)), layout: layoutOf(null) },
    ...source.variants.map((v, i) => ({
      at: `/variants/${i}`,
      language: v.language,
      parts: partsOf(source, v, layoutOf(v)),
      layout: layoutOf(v),
    })),
  ];
}

/**
 * What the engine threw, as the client's problem: a syntax error is a 400 naming each part, line
 * and column; a limit a 422 naming it; a client whose earlier heavy templates still hold its share
 * of the render threads a 429; any other template error (e.g. a missing helper) a 422 — never a
 * 500. `at`: where the part set's fields are in the request ('' for the default).
 */
export function problemOf(error: unknown, saving: boolean, at = ''): Error {
  if (error instanceof TemplateSyntaxError) {
    const errors = error.errors.map((e) => ({ ...e, pointer: `${at}${e.pointer}` }));
    // Located problems come from MJML's validation: well-formed Handlebars, a document MJML refuses.
    if (error.problems?.length) return new UnprocessableError('mjml-invalid', 'The MJML is not valid.', errors);
    return new ValidationError('The template has syntax errors.', errors);
  }
  const fields = at ? [{ pointer: at, message: 'this variant' }] : undefined;
  if (error instanceof RenderLimitError) {
    const detail = saving
      ? `With every value present and every list of ${SAMPLE_LIST_ITEMS} items, ${error.message}: it would fail every send.`
      : `The template cannot be rendered: ${error.message}.`;
    return new UnprocessableError('template-limit', detail, fields);
  }
  if (error instanceof TenantBusyError) return new TooManyRequestsError(`Your templates are being rendered: ${error.message}.`, 1);
  return new UnprocessableError(
    'render-failed',
    `The template cannot be rendered: ${(error as Error).message.split('\n')[0] ?? 'error'}`,
    fields,
  );
}

/**
 * A template about to be saved, checked and measured (each language's parts in its layout, compiled
 * and rendered with every value present and every list of SAMPLE_LIST_ITEMS items, see
 * TemplateEngine.measure): refused when it names a layout the project lacks, does not parse or does
 * not fit the render limits. Whether every part set is cheap travels with it to the mailer.
 */
export async function measureForSave(
  engine: TemplateEngine,
  layouts: LayoutLookup,
  source: TemplateSource,
  clientId: string,
  projectId: string,
): Promise<boolean | null> {
  const shape = shapeProblems(source);
  if (shape.length) throw new UnprocessableError('template-invalid', 'The template cannot be saved as it is.', shape);
  const { found, missing } = await layoutsOf(source, layouts, clientId, projectId);
  if (missing.length) throw new UnprocessableError('layout-missing', 'The template names a layout this project does not have.', missing);
  let cheap: boolean | null = true;
  for (const set of partSets(source, found)) {
    let measured: boolean | undefined;
    try {
      measured = (await engine.measure(set.parts, clientId)).cheap;
    } catch (error) {
      throw problemOf(error, true, set.at);
    }
    if (measured === false) cheap = false;
    else if (measured === undefined && cheap === true) cheap = null;
  }
  return cheap;
}

/** The layouts a stored version names are still there (publishing a draft, or rolling back); a 422 naming the gone ones. */
export async function assertLayoutsExist(layouts: LayoutLookup, source: TemplateSource, clientId: string, projectId: string) {
  const { missing } = await layoutsOf(source, layouts, clientId, projectId);
  if (missing.length) {
    throw new UnprocessableError(
      'layout-missing',
      'That version names a layout this project no longer has: save a version without it, then publish that.',
      missing,
    );
  }
}

/**
 * A template rendered as a send in `language` would be: its variant for that language (see
 * variantFor), in that variant's layout as published now. `key`: what the template and version are
 * (the engine keeps what it compiled under it).
 */
export async function renderAsSent(
  engine: TemplateEngine,
  layouts: LayoutLookup,
  template: { key: string; source: TemplateSource; cheap: boolean | null },
  options: { clientId: string; projectId: string; language: string | undefined; context: RenderContext },
): Promise<Rendered> {
  const { source } = template;
  const variant = variantFor(source.variants, options.language);
  const own = variant ?? source;
  const layoutId = layoutIdOf(source, variant);
  const layout = layoutId === null ? null : await layouts.published(options.clientId, options.projectId, layoutId);
  if (layoutId !== null && !layout) {
    throw new UnprocessableError('layout-missing', 'The layout this version is sent in no longer exists: save a version without it.');
  }
  const key = `${template.key}:${variant?.language ?? ''}:${layout ? `${layout.id}:${layout.version}` : ''}`;
  try {
    return await engine.render({ key, parts: partsOf(source, own, layout), cheap: template.cheap }, options.context, options.clientId);
  } catch (error) {
    throw problemOf(error, false);
  }
}

/** An unsaved template rendered as a send in `language` would be (the editor's live preview). */
export async function previewDraft(
  engine: TemplateEngine,
  layouts: LayoutLookup,
  source: TemplateSource,
  options: { clientId: string; projectId: string; language: string | undefined; context: RenderContext },
): Promise<Rendered> {
  const { found, missing } = await layoutsOf(source, layouts, options.clientId, options.projectId);
  if (missing.length) throw new UnprocessableError('layout-missing', 'The template names a layout this project does not have.', missing);
  const variant = variantFor(source.variants, options.language);
  const own = variant ?? source;
  const layoutId = layoutIdOf(source, variant);
  const layout = layoutId === null ? null : (found.get(layoutId) ?? null);
  try {
    return await engine.preview(partsOf(source, own, layout), options.context, options.clientId);
  } catch (error) {
    throw problemOf(error, false);
  }
}

const fieldOf = (at: string, part: string): string => `${at}/${part}`.slice(1);

/** A problem the engine found in one part set, as validate lists it (field, line, column). */
function located(at: string, problem: Pick<TemplateProblem, 'part' | 'line' | 'column' | 'message'>): TemplateCheckError {
  return { field: fieldOf(at, problem.part), line: problem.line, column: problem.column, message: problem.message };
}

/**
 * A render (or measure) that failed, as an error of the check: at the line a syntax error names
 * (MJML's), at the helper it names when it names one, else at the set's first part given; a
 * client whose share of the render threads is busy still gets its 429.
 */
function renderError(error: unknown, set: PartSet, given: string[], saving: boolean): TemplateCheckError[] {
  if (error instanceof TenantBusyError) throw problemOf(error, saving);
  const problems = (error as { problems?: TemplateProblem[] }).problems;
  if (error instanceof TemplateSyntaxError && problems?.length) return problems.map((p) => located(set.at, p));
  const message = problemOf(error, saving).message;
  const site = renderErrorSite(set.parts, error instanceof Error ? error.message : String(error));
  return [
    site
      ? { field: fieldOf(set.at, site.part), line: site.line, column: site.column, message }
      : { field: fieldOf(set.at, given[0] ?? 'html'), line: null, column: null, message },
  ];
}

export interface TemplateCheck {
  valid: boolean;
  errors: TemplateCheckError[];
  rendered: Rendered | null;
  variables: string[];
}

/**
 * Checks an unsaved template as saving would (each language's parts parse, and render with every
 * value present within the limits: TemplateEngine.measure), then renders it in `language` with the
 * user and data given, as the draft preview does. What it reads is found in the syntax trees of the
 * parts that parse, the layouts' included.
 */
export async function checkDraft(
  engine: TemplateEngine,
  layouts: LayoutLookup,
  source: TemplateSource,
  given: string[],
  options: { clientId: string; projectId: string; language: string | undefined; context: RenderContext },
): Promise<TemplateCheck> {
  const errors: TemplateCheckError[] = shapeProblems(source).map((p) => ({
    field: p.pointer.slice(1),
    line: null,
    column: null,
    message: p.message,
  }));
  const { found, missing } = await layoutsOf(source, layouts, options.clientId, options.projectId);
  errors.push(...missing.map((m) => ({ field: m.pointer.slice(1), line: null, column: null, message: m.message })));
  const sets = partSets(source, found);
  const variables = new Set<string>();
  const syntax: TemplateCheckError[] = [];
  for (const set of sets) {
    const problems = templateProblems({ subject: set.parts.subject, html: set.parts.html, text: set.parts.text ?? null });
    const broken = new Set(problems.map((p) => p.part));
    const readable = Object.fromEntries((['subject', 'html', 'text'] as const).filter((p) => !broken.has(p)).map((p) => [p, set.parts[p]]));
    for (const path of templateVariables(readable)) variables.add(path);
    if (set.layout) for (const path of templateVariables({ html: set.layout.html, text: set.layout.text })) variables.add(path);
    syntax.push(...problems.map((p) => located(set.at, p)));
  }
  const sorted = [...variables].sort();
  errors.push(...syntax);
  if (errors.length) return { valid: false, errors, rendered: null, variables: sorted };
  for (const set of sets) {
    try {
      await engine.measure(set.parts, options.clientId);
    } catch (error) {
      errors.push(...renderError(error, set, set.at ? ['html'] : given, true));
    }
  }
  if (errors.length) return { valid: false, errors, rendered: null, variables: sorted };
  const chosen = variantFor(source.variants, options.language);
  const set = sets.find((s) => s.language === (chosen?.language ?? null)) ?? sets[0]!;
  try {
    const rendered = await engine.preview(set.parts, options.context, options.clientId);
    return { valid: true, errors: [], rendered, variables: sorted };
  } catch (error) {
    return { valid: false, errors: renderError(error, set, set.at ? ['html'] : given, false), rendered: null, variables: sorted };
  }
}

/**
 * A layout about to be saved: its html (and text, when it has one) parse and put the body in
 * `{{{content}}}` exactly once (a 422 naming the field otherwise), and it renders around a sample
 * body within the limits (measured as a template is).
 */
export async function checkLayoutForSave(engine: TemplateEngine, layout: { html: string; text: string | null }, clientId: string) {
  const problems = layoutProblems(layout);
  if (problems.length) {
    // A 422, not the 400 a template's syntax error has kept since before layouts: the schema says
    // what a valid request is, and a layout's grammar is beyond what a schema can say.
    throw new UnprocessableError(
      'layout-invalid',
      'The layout cannot be saved as it is.',
      problems.map((p) => ({
        pointer: `/${p.part}`,
        message: [p.line !== null ? `line ${p.line}` : '', p.message].filter(Boolean).join(', '),
      })),
    );
  }
  try {
    await engine.measure({ subject: 'Layout', html: '<p>The body</p>', text: layout.text === null ? null : 'The body', layout }, clientId);
  } catch (error) {
    // The layout's own errors are named as the layout route's fields (/html, /text).
    const problem = problemOf(error, true);
    if (problem instanceof ValidationError) {
      throw new UnprocessableError(
        'layout-invalid',
        'The layout cannot be saved as it is.',
        (problem.errors ?? []).map((e) => ({ ...e, pointer: e.pointer.replace(/^\/layout/, '') })),
      );
    }
    throw problem;
  }
}
