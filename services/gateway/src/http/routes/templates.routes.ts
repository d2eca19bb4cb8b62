import {
  DraftPreviewRequest,
  PreviewRequest,
  ProjectIdParam,
  RenderedEmail,
  SaveTemplateRequest,
  Template,
  TemplateList,
  MAX_TEMPLATE_VERSIONS_LISTED,
  TemplateParams,
  TemplateValidation,
  TemplateVersionList,
  TemplateVersionQuery,
  ValidateTemplateRequest,
} from '@postbus/contracts';
import { NotFoundError, TooManyRequestsError, UnprocessableError, ValidationError } from '@postbus/errors';
import {
  RenderLimitError,
  renderErrorSite,
  SAMPLE_LIST_ITEMS,
  templateProblems,
  TemplateSyntaxError,
  templateVariables,
  TenantBusyError,
  type PartName,
  type RenderContext,
  type Rendered,
  type TemplateEngine,
  type TemplateParts,
} from '@postbus/templates';
import type { TemplateRepository, TemplateVersion } from '../../model/template.repository';
import { defineRoute, type RouteSpec } from '../route';

const NOT_FOUND = 'No such template (or version) in this project.';

const toTemplate = (t: TemplateVersion): Template => ({
  id: t.id,
  project_id: t.projectId,
  name: t.name,
  version: t.version,
  latest_version: t.latestVersion,
  subject: t.subject,
  html: t.html,
  text: t.text,
  created_at: t.createdAt.toISOString(),
  updated_at: t.updatedAt.toISOString(),
});

const partsOf = (body: Pick<SaveTemplateRequest, 'subject' | 'html' | 'text'>): TemplateParts => ({
  subject: body.subject,
  html: body.html,
  text: body.text ?? null,
});

/**
 * What the engine threw, as the client's problem: a syntax error is a 400 naming each part, line
 * and column; a limit a 422 naming it; a client whose earlier heavy templates still hold its share
 * of the render threads a 429; any other template error (e.g. a missing helper) a 422 — never a 500.
 */
function problemOf(error: unknown, saving: boolean): Error {
  if (error instanceof TemplateSyntaxError) return new ValidationError('The template has syntax errors.', error.errors);
  if (error instanceof RenderLimitError) {
    const detail = saving
      ? `With every value present and every list of ${SAMPLE_LIST_ITEMS} items, ${error.message}: it would fail every send.`
      : `The template cannot be rendered: ${error.message}.`;
    return new UnprocessableError('template-limit', detail);
  }
  if (error instanceof TenantBusyError) return new TooManyRequestsError(`Your templates are being rendered: ${error.message}.`, 1);
  return new UnprocessableError('render-failed', `The template cannot be rendered: ${(error as Error).message.split('\n')[0] ?? 'error'}`);
}

/**
 * A template about to be saved, measured once (compiled and rendered with every value present and
 * every list of SAMPLE_LIST_ITEMS items, see TemplateEngine.measure): refused when it does not
 * parse or does not fit the render limits; whether it is cheap travels with it to the mailer.
 */
async function measureForSave(engine: TemplateEngine, body: SaveTemplateRequest, clientId: string): Promise<boolean | undefined> {
  try {
    return (await engine.measure(partsOf(body), clientId)).cheap;
  } catch (error) {
    throw problemOf(error, true);
  }
}

/** Renders for a preview, in the client's share of the render threads when the template is heavy. */
async function renderForPreview(render: () => Promise<Rendered>): Promise<Rendered> {
  try {
    return await render();
  } catch (error) {
    throw problemOf(error, false);
  }
}

type CheckError = TemplateValidation['errors'][number];

/**
 * A render that failed as an error of the check, placed at the helper it names when it names one,
 * else at the first part given (html, subject, text); a client whose share of the render threads
 * is busy still gets its 429.
 */
function renderError(error: unknown, parts: TemplateParts, given: PartName[], saving: boolean): CheckError {
  if (error instanceof TenantBusyError) throw problemOf(error, saving);
  const message = problemOf(error, saving).message;
  const site = renderErrorSite(parts, error instanceof Error ? error.message : String(error));
  return site
    ? { field: site.part, line: site.line, column: site.column, message }
    : { field: given[0]!, line: null, column: null, message };
}

/**
 * Checks an unsaved template as saving would (it parses, and renders with every value present
 * within the limits: TemplateEngine.measure), then renders it with the user and data given, as the
 * draft preview does. What it reads is found in its syntax tree, from the parts that parse.
 */
async function validateDraft(
  engine: TemplateEngine,
  body: ValidateTemplateRequest,
  given: PartName[],
  clientId: string,
): Promise<TemplateValidation> {
  const parts: TemplateParts = { subject: body.subject ?? '', html: body.html ?? '', text: body.text ?? null };
  const problems = templateProblems(parts);
  const broken = new Set(problems.map((p) => p.part));
  const variables = templateVariables(Object.fromEntries(given.filter((part) => !broken.has(part)).map((part) => [part, parts[part]])));
  if (problems.length) {
    const errors = problems.map(({ part, line, column, message }) => ({ field: part, line, column, message }));
    return { valid: false, errors, rendered: null, variables };
  }
  try {
    await engine.measure(parts, clientId);
  } catch (error) {
    return { valid: false, errors: [renderError(error, parts, given, true)], rendered: null, variables };
  }
  try {
    const rendered = await engine.preview(parts, { user: body.user, data: body.data }, clientId);
    return { valid: true, errors: [], rendered, variables };
  } catch (error) {
    return { valid: false, errors: [renderError(error, parts, given, false)], rendered: null, variables };
  }
}

/** Templates (the seed's fourth prerequisite): Handlebars subject, HTML and text, versioned. */
export function templateRoutes(templates: TemplateRepository): RouteSpec[] {
  return [
    defineRoute({
      method: 'post',
      path: '/v1/projects/:projectId/templates',
      tenant: { project: 'projectId' },
      operationId: 'createTemplate',
      summary: 'Create a template',
      tag: 'Templates',
      scope: 'full',
      params: ProjectIdParam,
      body: SaveTemplateRequest,
      responses: { 201: { description: 'The template, version 1', schema: Template } },
      handle: async ({ params, body, client }) => {
        const cheap = await measureForSave(templates.engine, body, client.clientId);
        return { status: 201, body: toTemplate(await templates.create(client.clientId, params.projectId, { ...body, cheap })) };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/v1/projects/:projectId/templates',
      tenant: { project: 'projectId' },
      operationId: 'listTemplates',
      summary: 'List templates',
      tag: 'Templates',
      scope: 'full',
      params: ProjectIdParam,
      responses: { 200: { description: 'The templates, latest versions, oldest first', schema: TemplateList } },
      handle: async ({ params, client }) => {
        return { status: 200, body: { data: (await templates.list(client.clientId, params.projectId)).map(toTemplate) } };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/v1/projects/:projectId/templates/:templateId',
      tenant: { project: 'projectId' },
      operationId: 'getTemplate',
      summary: 'Get a template (?version=n for an older one)',
      tag: 'Templates',
      scope: 'full',
      params: TemplateParams,
      query: TemplateVersionQuery,
      responses: { 200: { description: 'The template', schema: Template } },
      handle: async ({ params, query, client }) => {
        const found = await templates.get(client.clientId, params.projectId, params.templateId, query.version);
        if (!found) throw new NotFoundError(NOT_FOUND);
        return { status: 200, body: toTemplate(found) };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/v1/projects/:projectId/templates/:templateId/versions',
      tenant: { project: 'projectId' },
      operationId: 'listTemplateVersions',
      summary: 'List when each version of a template was saved, newest first',
      tag: 'Templates',
      scope: 'full',
      params: TemplateParams,
      responses: { 200: { description: 'The versions, newest first', schema: TemplateVersionList } },
      handle: async ({ params, client }) => {
        const found = await templates.versions(client.clientId, params.projectId, params.templateId, MAX_TEMPLATE_VERSIONS_LISTED);
        if (!found) throw new NotFoundError(NOT_FOUND);
        return { status: 200, body: { data: found.map((v) => ({ version: v.version, created_at: v.createdAt.toISOString() })) } };
      },
    }),
    defineRoute({
      method: 'put',
      path: '/v1/projects/:projectId/templates/:templateId',
      tenant: { project: 'projectId' },
      operationId: 'saveTemplateVersion',
      summary: 'Save a new version of a template',
      tag: 'Templates',
      scope: 'full',
      params: TemplateParams,
      body: SaveTemplateRequest,
      responses: { 200: { description: 'The new version', schema: Template } },
      handle: async ({ params, body, client }) => {
        const cheap = await measureForSave(templates.engine, body, client.clientId);
        const saved = await templates.saveVersion(client.clientId, params.projectId, params.templateId, { ...body, cheap });
        if (!saved) throw new NotFoundError(NOT_FOUND);
        return { status: 200, body: toTemplate(saved) };
      },
    }),
    defineRoute({
      method: 'delete',
      path: '/v1/projects/:projectId/templates/:templateId',
      tenant: { project: 'projectId' },
      operationId: 'deleteTemplate',
      summary: 'Delete a template and its versions',
      tag: 'Templates',
      scope: 'full',
      params: TemplateParams,
      responses: { 204: { description: 'Deleted' } },
      handle: async ({ params, client }) => {
        if (!(await templates.delete(client.clientId, params.projectId, params.templateId))) throw new NotFoundError(NOT_FOUND);
        return { status: 204 };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/v1/projects/:projectId/templates/:templateId/preview',
      tenant: { project: 'projectId' },
      operationId: 'previewTemplate',
      summary: 'Render a template with a user and data',
      tag: 'Templates',
      scope: 'full',
      params: TemplateParams,
      body: PreviewRequest,
      responses: { 200: { description: 'The rendered subject, HTML and text', schema: RenderedEmail } },
      handle: async ({ params, body, client }) => {
        const found = await templates.get(client.clientId, params.projectId, params.templateId, body.version);
        if (!found) throw new NotFoundError(NOT_FOUND);
        const context: RenderContext = { user: body.user, data: body.data };
        const template = { key: `${found.id}:${found.version}`, parts: found, cheap: found.cheap };
        return { status: 200, body: await renderForPreview(() => templates.engine.render(template, context, client.clientId)) };
      },
    }),
    defineRoute({
      method: 'post',
      // Not under /templates: /templates/{templateId} would answer its other methods (PUT, DELETE) with a 404 instead of 405.
      path: '/v1/projects/:projectId/template-preview',
      tenant: { project: 'projectId' },
      operationId: 'previewDraftTemplate',
      summary: "Render an unsaved template with a user and data (the editor's live preview)",
      tag: 'Templates',
      scope: 'full',
      params: ProjectIdParam,
      body: DraftPreviewRequest,
      responses: { 200: { description: 'The rendered subject, HTML and text; nothing is saved', schema: RenderedEmail } },
      handle: async ({ body, client }) => {
        const context: RenderContext = { user: body.user, data: body.data };
        return { status: 200, body: await renderForPreview(() => templates.engine.preview(partsOf(body), context, client.clientId)) };
      },
    }),
    defineRoute({
      method: 'post',
      // A static segment: the route tree prefers it to /templates/{templateId}, whose GET, PUT and
      // DELETE answer /templates/validate with a 404 (no template has that id).
      path: '/v1/projects/:projectId/templates/validate',
      tenant: { project: 'projectId' },
      operationId: 'validateTemplate',
      summary:
        "Check an unsaved template: its errors by field, line and column, its render with a user and data, and the variables it reads (the editor's checks while typing)",
      tag: 'Templates',
      scope: 'full',
      params: ProjectIdParam,
      body: ValidateTemplateRequest,
      responses: { 200: { description: 'What the check found; nothing is saved', schema: TemplateValidation } },
      handle: async ({ body, client }) => {
        const given = (['html', 'subject', 'text'] as const).filter((part) => typeof body[part] === 'string');
        if (!given.length) {
          throw new UnprocessableError('template-empty', 'Give at least one of subject, html and text to validate.', [
            { pointer: '/subject', message: 'give at least one of subject, html and text' },
          ]);
        }
        return { status: 200, body: await validateDraft(templates.engine, body, given, client.clientId) };
      },
    }),
  ];
}
