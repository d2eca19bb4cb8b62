import {
  CreateLayoutRequest,
  Layout,
  LayoutList,
  LayoutParams,
  LayoutVersionParams,
  MAX_TEMPLATE_VERSIONS_LISTED,
  ProjectIdParam,
  SaveLayoutRequest,
  TemplateVersionList,
  TemplateVersionQuery,
} from '@postbus/contracts';
import { ConflictError, NotFoundError } from '@postbus/errors';
import { checkLayoutForSave } from '../../domain/template-checks';
import type { LayoutRepository, LayoutVersion } from '../../model/layout.repository';
import type { TemplateRepository } from '../../model/template.repository';
import { defineRoute, type RouteSpec } from '../route';
import { savedByOf, toSavedBy, toVersionList } from './templates.routes';

const NOT_FOUND = 'No such layout (or version) in this project.';

const toLayout = (l: LayoutVersion): Layout => ({
  id: l.id,
  project_id: l.projectId,
  name: l.name,
  version: l.version,
  latest_version: l.latestVersion,
  published_version: l.publishedVersion,
  html: l.parts.html,
  text: l.parts.text,
  saved_by: toSavedBy(l.savedBy),
  created_at: l.createdAt.toISOString(),
  updated_at: l.updatedAt.toISOString(),
});

/** Layouts: the html (and text) around templates' bodies, versioned and published as templates are. */
export function layoutRoutes({ templates, layouts }: { templates: TemplateRepository; layouts: LayoutRepository }): RouteSpec[] {
  const { engine } = templates;
  return [
    defineRoute({
      method: 'post',
      path: '/v1/projects/:projectId/layouts',
      tenant: { project: 'projectId' },
      operationId: 'createLayout',
      summary: 'Create a layout (version 1, published)',
      tag: 'Layouts',
      scope: 'full',
      params: ProjectIdParam,
      body: CreateLayoutRequest,
      responses: { 201: { description: 'The layout, version 1', schema: Layout } },
      handle: async ({ params, body, client }) => {
        const content = { html: body.html, text: body.text ?? null };
        await checkLayoutForSave(engine, content, client.clientId);
        return {
          status: 201,
          body: toLayout(await layouts.create(client.clientId, params.projectId, body.name, content, savedByOf(client))),
        };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/v1/projects/:projectId/layouts',
      tenant: { project: 'projectId' },
      operationId: 'listLayouts',
      summary: 'List layouts',
      tag: 'Layouts',
      scope: 'full',
      params: ProjectIdParam,
      responses: { 200: { description: 'The layouts, newest versions, oldest first', schema: LayoutList } },
      handle: async ({ params, client }) => ({
        status: 200,
        body: { data: (await layouts.list(client.clientId, params.projectId)).map(toLayout) },
      }),
    }),
    defineRoute({
      method: 'get',
      path: '/v1/projects/:projectId/layouts/:layoutId',
      tenant: { project: 'projectId' },
      operationId: 'getLayout',
      summary: 'Get a layout: its newest version, or ?version=n',
      tag: 'Layouts',
      scope: 'full',
      params: LayoutParams,
      query: TemplateVersionQuery,
      responses: { 200: { description: 'The layout', schema: Layout } },
      handle: async ({ params, query, client }) => {
        const found = await layouts.get(client.clientId, params.projectId, params.layoutId, query.version);
        if (!found) throw new NotFoundError(NOT_FOUND);
        return { status: 200, body: toLayout(found) };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/v1/projects/:projectId/layouts/:layoutId/versions',
      tenant: { project: 'projectId' },
      operationId: 'listLayoutVersions',
      summary: 'List the versions of a layout, newest first: when each was saved, by whom, and which is published',
      tag: 'Layouts',
      scope: 'full',
      params: LayoutParams,
      responses: { 200: { description: 'The versions, newest first', schema: TemplateVersionList } },
      handle: async ({ params, client }) => {
        const found = await layouts.versions(client.clientId, params.projectId, params.layoutId, MAX_TEMPLATE_VERSIONS_LISTED);
        if (!found) throw new NotFoundError(NOT_FOUND);
        return { status: 200, body: toVersionList(found) };
      },
    }),
    defineRoute({
      method: 'put',
      path: '/v1/projects/:projectId/layouts/:layoutId',
      tenant: { project: 'projectId' },
      operationId: 'saveLayoutVersion',
      summary: 'Save a new version of a layout: published at once, or a draft ("draft": true) published later',
      tag: 'Layouts',
      scope: 'full',
      params: LayoutParams,
      body: SaveLayoutRequest,
      responses: { 200: { description: 'The new version', schema: Layout } },
      handle: async ({ params, body, client }) => {
        const content = { html: body.html, text: body.text ?? null };
        await checkLayoutForSave(engine, content, client.clientId);
        const saved = await layouts.save(client.clientId, params.projectId, params.layoutId, body.name, content, {
          draft: body.draft === true,
          savedBy: savedByOf(client),
        });
        if (!saved) throw new NotFoundError(NOT_FOUND);
        return { status: 200, body: toLayout(saved) };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/v1/projects/:projectId/layouts/:layoutId/versions/:version/publish',
      tenant: { project: 'projectId' },
      operationId: 'publishLayoutVersion',
      summary: 'Publish a version of a layout: a draft goes live in every template that names the layout, or an older version comes back',
      tag: 'Layouts',
      scope: 'full',
      params: LayoutVersionParams,
      responses: { 200: { description: 'The version published', schema: Layout } },
      handle: async ({ params, client }) => {
        const published = await layouts.publish(client.clientId, params.projectId, params.layoutId, params.version);
        if (typeof published === 'string') throw new NotFoundError(NOT_FOUND);
        return { status: 200, body: toLayout(published) };
      },
    }),
    defineRoute({
      method: 'delete',
      path: '/v1/projects/:projectId/layouts/:layoutId',
      tenant: { project: 'projectId' },
      operationId: 'deleteLayout',
      summary: "Delete a layout and its versions: refused (409) while a template's published version uses it",
      tag: 'Layouts',
      scope: 'full',
      params: LayoutParams,
      responses: {
        204: { description: 'Deleted' },
        409: { description: "A template's published version uses the layout (the problem names the templates)" },
      },
      handle: async ({ params, client }) => {
        if (!(await layouts.get(client.clientId, params.projectId, params.layoutId))) throw new NotFoundError(NOT_FOUND);
        const users = await templates.publishedUsing(client.clientId, params.projectId, params.layoutId);
        if (users.length) {
          throw new ConflictError(
            'layout-in-use',
            `The layout is used by the published version of ${users.length === 1 ? 'the template' : 'the templates'} ${users.map((n) => JSON.stringify(n)).join(', ')}: publish versions of them without it first.`,
          );
        }
        if (!(await layouts.delete(client.clientId, params.projectId, params.layoutId))) throw new NotFoundError(NOT_FOUND);
        return { status: 204 };
      },
    }),
  ];
}
