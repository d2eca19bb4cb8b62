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
import { NotFoundError, UnprocessableError, ValidationError } from '@postbus/errors';
import { render, syntaxErrors, type RenderContext, type Rendered, type TemplateParts } from '@postbus/templates';
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

/** A template that does not parse is refused with where each error is. */
function assertParses(body: Pick<SaveTemplateRequest, 'subject' | 'html' | 'text'>): void {
  const errors = syntaxErrors({ subject: body.subject, html: body.html, text: body.text ?? null });
  if (errors.length) throw new ValidationError('The template has syntax errors.', errors);
}

/** Renders for a preview: a template error or a render limit (libs/templates RENDER_LIMITS) is the client's to fix, never a 500. */
function renderForPreview(parts: TemplateParts, context: RenderContext): Rendered {
  try {
    return render(parts, context);
  } catch (error) {
    throw new UnprocessableError('render-failed', `The template cannot be rendered: ${(error as Error).message.split('\n')[0] ?? 'error'}`);
  }
}

/** Templates (the seed's fourth prerequisite): Handlebars subject, HTML and text, versioned. */
export function templateRoutes(
  templates: TemplateRepository,
  assertProject: (clientId: string, projectId: string) => Promise<void>,
): RouteSpec[] {
  return [
    defineRoute({
      method: 'post',
      path: '/v1/projects/:projectId/templates',
      operationId: 'createTemplate',
      summary: 'Create a template',
      tag: 'Templates',
      scope: 'full',
      params: ProjectIdParam,
      body: SaveTemplateRequest,
      responses: { 201: { description: 'The template, version 1', schema: Template } },
      handle: async ({ params, body, client }) => {
        await assertProject(client.clientId, params.projectId);
        assertParses(body);
        return { status: 201, body: toTemplate(await templates.create(client.clientId, params.projectId, body)) };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/v1/projects/:projectId/templates',
      operationId: 'listTemplates',
      summary: 'List templates',
      tag: 'Templates',
      scope: 'full',
      params: ProjectIdParam,
      responses: { 200: { description: 'The templates, latest versions, oldest first', schema: TemplateList } },
      handle: async ({ params, client }) => {
        await assertProject(client.clientId, params.projectId);
        return { status: 200, body: { data: (await templates.list(client.clientId, params.projectId)).map(toTemplate) } };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/v1/projects/:projectId/templates/:templateId',
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
      operationId: 'saveTemplateVersion',
      summary: 'Save a new version of a template',
      tag: 'Templates',
      scope: 'full',
      params: TemplateParams,
      body: SaveTemplateRequest,
      responses: { 200: { description: 'The new version', schema: Template } },
      handle: async ({ params, body, client }) => {
        assertParses(body);
        const saved = await templates.saveVersion(client.clientId, params.projectId, params.templateId, body);
        if (!saved) throw new NotFoundError(NOT_FOUND);
        return { status: 200, body: toTemplate(saved) };
      },
    }),
    defineRoute({
      method: 'delete',
      path: '/v1/projects/:projectId/templates/:templateId',
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
        return { status: 200, body: renderForPreview(found, { user: body.user, data: body.data }) };
      },
    }),
    defineRoute({
      method: 'post',
      // Not under /templates: /templates/{templateId} would answer its other methods (PUT, DELETE) with a 404 instead of 405.
      path: '/v1/projects/:projectId/template-preview',
      operationId: 'previewDraftTemplate',
      summary: "Render an unsaved template with a user and data (the editor's live preview)",
      tag: 'Templates',
      scope: 'full',
      params: ProjectIdParam,
      body: DraftPreviewRequest,
      responses: { 200: { description: 'The rendered subject, HTML and text; nothing is saved', schema: RenderedEmail } },
      handle: async ({ params, body, client }) => {
        await assertProject(client.clientId, params.projectId);
        assertParses(body);
        return { status: 200, body: renderForPreview(body, { user: body.user, data: body.data }) };
      },
    }),
  ];
}
