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
  TemplateVersionList,
  TemplateVersionQuery,
} from '@postbus/contracts';
import { NotFoundError, TooManyRequestsError, UnprocessableError, ValidationError } from '@postbus/errors';
import {
  RenderLimitError,
  SAMPLE_LIST_ITEMS,
  TemplateSyntaxError,
  TenantBusyError,
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
  ];
}
