import {
  CreateTemplateRequest,
  DraftPreviewRequest,
  MAX_TEMPLATE_VERSIONS_LISTED,
  PreviewRequest,
  ProjectIdParam,
  RenderedEmail,
  SaveTemplateRequest,
  Template,
  TemplateList,
  TemplateParams,
  TemplateValidation,
  TemplateVersionList,
  TemplateVersionParams,
  TemplateVersionQuery,
  ValidateTemplateRequest,
  type TemplateVariant,
} from '@postbus/contracts';
import { NotFoundError, UnprocessableError } from '@postbus/errors';
import type { RenderContext } from '@postbus/templates';
import {
  assertLayoutsExist,
  checkDraft,
  measureForSave,
  previewDraft,
  renderAsSent,
  type LayoutLookup,
  type TemplateSource,
} from '../../domain/template-checks';
import type { LayoutRepository } from '../../model/layout.repository';
import type { TemplateContent, TemplateRepository, TemplateVersion } from '../../model/template.repository';
import type { SavedBy, VersionSummary } from '../../model/versioned.store';
import type { AuthenticatedClient } from '../auth';
import { defineRoute, type RouteSpec } from '../route';

const NOT_FOUND = 'No such template (or version) in this project.';

/** Who saved a version, as reads say it. */
export const savedByOf = (client: AuthenticatedClient): SavedBy => ({ keyId: client.keyId, via: client.via });
export const toSavedBy = (savedBy: SavedBy | null) => (savedBy ? { key_id: savedBy.keyId, via: savedBy.via } : null);

/** The versions list, as GET …/versions answers it (templates and layouts alike). */
export const toVersionList = (versions: VersionSummary[]) => ({
  data: versions.map((v) => ({
    version: v.version,
    created_at: v.createdAt.toISOString(),
    saved_by: toSavedBy(v.savedBy),
    published: v.published,
  })),
});

const toTemplate = (t: TemplateVersion): Template => ({
  id: t.id,
  project_id: t.projectId,
  name: t.name,
  version: t.version,
  latest_version: t.latestVersion,
  published_version: t.publishedVersion,
  format: t.parts.format,
  subject: t.parts.subject,
  html: t.parts.html,
  text: t.parts.text,
  layout_id: t.parts.layoutId,
  variants: t.parts.variants.map((v) => ({ language: v.language, subject: v.subject, html: v.html, text: v.text, layout_id: v.layoutId })),
  saved_by: toSavedBy(t.savedBy),
  created_at: t.createdAt.toISOString(),
  updated_at: t.updatedAt.toISOString(),
});

/** What a request says of a template's content, in the stored names; absent fields as a new template has them. */
export const sourceOf = (body: {
  subject?: string | undefined;
  html?: string | undefined;
  text?: string | null | undefined;
  format?: 'handlebars' | 'mjml' | undefined;
  layout_id?: string | null | undefined;
  variants?: TemplateVariant[] | undefined;
}): TemplateSource => ({
  subject: body.subject ?? '',
  html: body.html ?? '',
  text: body.text ?? null,
  format: body.format ?? 'handlebars',
  layoutId: body.layout_id ?? null,
  variants: (body.variants ?? []).map((v) => ({
    language: v.language,
    subject: v.subject,
    html: v.html,
    text: v.text ?? null,
    layoutId: v.layout_id ?? null,
  })),
});

const contentOf = (source: TemplateSource, cheap: boolean | null): TemplateContent => ({ ...source, cheap });

/** The layouts as a template's checks read them: their published versions. */
export const layoutLookup = (layouts: LayoutRepository): LayoutLookup => ({
  published: async (clientId, projectId, id) => {
    const found = await layouts.published(clientId, projectId, id);
    return found ? { id: found.id, version: found.version, html: found.parts.html, text: found.parts.text } : null;
  },
});

/** Templates (the seed's fourth prerequisite): Handlebars or MJML, language variants, layouts, versions published one at a time. */
export function templateRoutes({ templates, layouts }: { templates: TemplateRepository; layouts: LayoutRepository }): RouteSpec[] {
  const lookup = layoutLookup(layouts);
  const { engine } = templates;
  return [
    defineRoute({
      method: 'post',
      path: '/v1/projects/:projectId/templates',
      tenant: { project: 'projectId' },
      operationId: 'createTemplate',
      summary: 'Create a template (version 1, published)',
      tag: 'Templates',
      scope: 'full',
      params: ProjectIdParam,
      body: CreateTemplateRequest,
      responses: { 201: { description: 'The template, version 1', schema: Template } },
      handle: async ({ params, body, client }) => {
        const source = sourceOf(body);
        const cheap = await measureForSave(engine, lookup, source, client.clientId, params.projectId);
        const created = await templates.create(client.clientId, params.projectId, body.name, contentOf(source, cheap), savedByOf(client));
        return { status: 201, body: toTemplate(created) };
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
      responses: { 200: { description: 'The templates, newest versions, oldest first', schema: TemplateList } },
      handle: async ({ params, client }) => {
        return { status: 200, body: { data: (await templates.list(client.clientId, params.projectId)).map(toTemplate) } };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/v1/projects/:projectId/templates/:templateId',
      tenant: { project: 'projectId' },
      operationId: 'getTemplate',
      summary: 'Get a template: its newest version (a draft when one is ahead of the published one), or ?version=n',
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
      summary: 'List the versions of a template, newest first: when each was saved, by whom, and which is published',
      tag: 'Templates',
      scope: 'full',
      params: TemplateParams,
      responses: { 200: { description: 'The versions, newest first', schema: TemplateVersionList } },
      handle: async ({ params, client }) => {
        const found = await templates.versions(client.clientId, params.projectId, params.templateId, MAX_TEMPLATE_VERSIONS_LISTED);
        if (!found) throw new NotFoundError(NOT_FOUND);
        return { status: 200, body: toVersionList(found) };
      },
    }),
    defineRoute({
      method: 'put',
      path: '/v1/projects/:projectId/templates/:templateId',
      tenant: { project: 'projectId' },
      operationId: 'saveTemplateVersion',
      summary: 'Save a new version of a template: published at once, or a draft ("draft": true) published later',
      tag: 'Templates',
      scope: 'full',
      params: TemplateParams,
      body: SaveTemplateRequest,
      responses: { 200: { description: 'The new version', schema: Template } },
      handle: async ({ params, body, client }) => {
        const source = sourceOf(body);
        const cheap = await measureForSave(engine, lookup, source, client.clientId, params.projectId);
        const saved = await templates.save(client.clientId, params.projectId, params.templateId, body.name, contentOf(source, cheap), {
          draft: body.draft === true,
          savedBy: savedByOf(client),
        });
        if (!saved) throw new NotFoundError(NOT_FOUND);
        return { status: 200, body: toTemplate(saved) };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/v1/projects/:projectId/templates/:templateId/versions/:version/publish',
      tenant: { project: 'projectId' },
      operationId: 'publishTemplateVersion',
      summary: 'Publish a version of a template: a draft goes live, or an older version comes back (a rollback)',
      tag: 'Templates',
      scope: 'full',
      params: TemplateVersionParams,
      responses: { 200: { description: 'The version published, which sends use from now on', schema: Template } },
      handle: async ({ params, client }) => {
        const version = await templates.get(client.clientId, params.projectId, params.templateId, params.version);
        if (!version) throw new NotFoundError(NOT_FOUND);
        await assertLayoutsExist(lookup, version.parts, client.clientId, params.projectId);
        const published = await templates.publish(client.clientId, params.projectId, params.templateId, params.version);
        if (typeof published === 'string') throw new NotFoundError(NOT_FOUND);
        return { status: 200, body: toTemplate(published) };
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
      summary: 'Render a version of a template (the newest by default) with a user and data, in a language, as a send would',
      tag: 'Templates',
      scope: 'full',
      params: TemplateParams,
      query: TemplateVersionQuery,
      body: PreviewRequest,
      responses: { 200: { description: 'The rendered subject, HTML and text', schema: RenderedEmail } },
      handle: async ({ params, query, body, client }) => {
        if (query.version !== undefined && body.version !== undefined && query.version !== body.version) {
          throw new UnprocessableError('version-conflict', 'The query and the body name different versions: name one.', [
            { pointer: '/version', message: `differs from ?version=${query.version}` },
          ]);
        }
        const found = await templates.get(client.clientId, params.projectId, params.templateId, query.version ?? body.version);
        if (!found) throw new NotFoundError(NOT_FOUND);
        const context: RenderContext = { user: body.user, data: body.data };
        const template = { key: `${found.id}:${found.version}`, source: found.parts, cheap: found.parts.cheap };
        const rendered = await renderAsSent(engine, lookup, template, {
          clientId: client.clientId,
          projectId: params.projectId,
          language: body.language,
          context,
        });
        return { status: 200, body: rendered };
      },
    }),
    defineRoute({
      method: 'post',
      // Not under /templates: /templates/{templateId} would answer its other methods (PUT, DELETE) with a 404 instead of 405.
      path: '/v1/projects/:projectId/template-preview',
      tenant: { project: 'projectId' },
      operationId: 'previewDraftTemplate',
      summary: "Render an unsaved template with a user and data, in a language (the editor's live preview)",
      tag: 'Templates',
      scope: 'full',
      params: ProjectIdParam,
      body: DraftPreviewRequest,
      responses: { 200: { description: 'The rendered subject, HTML and text; nothing is saved', schema: RenderedEmail } },
      handle: async ({ params, body, client }) => {
        const context: RenderContext = { user: body.user, data: body.data };
        const options = { clientId: client.clientId, projectId: params.projectId, language: body.language, context };
        return { status: 200, body: await previewDraft(engine, lookup, sourceOf(body), options) };
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
        "Check an unsaved template: its errors by field, line and column, its render with a user and data in a language, and the variables it reads (the editor's checks while typing)",
      tag: 'Templates',
      scope: 'full',
      params: ProjectIdParam,
      body: ValidateTemplateRequest,
      responses: { 200: { description: 'What the check found; nothing is saved', schema: TemplateValidation } },
      handle: async ({ params, body, client }) => {
        const given = (['html', 'subject', 'text'] as const).filter((part) => typeof body[part] === 'string');
        if (!given.length) {
          throw new UnprocessableError('template-empty', 'Give at least one of subject, html and text to validate.', [
            { pointer: '/subject', message: 'give at least one of subject, html and text' },
          ]);
        }
        const context: RenderContext = { user: body.user, data: body.data };
        const options = { clientId: client.clientId, projectId: params.projectId, language: body.language, context };
        return { status: 200, body: await checkDraft(engine, lookup, sourceOf(body), given, options) };
      },
    }),
  ];
}
