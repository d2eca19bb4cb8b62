import { CreateProjectRequest, ListQuery, Project, ProjectIdParam, ProjectList, UpdateProjectRequest } from '@postbus/contracts';
import { NotFoundError } from '@postbus/errors';
import { assertProjectDomains, type DomainLookup } from '../../domain/project-domains';
import type { ProjectRepository } from '../../model/project.repository';
import { defineRoute, type RouteSpec } from '../route';

const PROJECT_NOT_FOUND = 'No such project for this client.';

/** Management of projects (scope full). */
export function projectRoutes(
  projects: ProjectRepository,
  onChange: (projectId: string) => void,
  /** The client's domain of that kind with this id, or null. */
  domainOf: DomainLookup,
): RouteSpec[] {
  const assertDomains = (clientId: string, body: UpdateProjectRequest, current: Project | null = null) =>
    assertProjectDomains(domainOf, clientId, body, current);
  return [
    defineRoute({
      method: 'post',
      path: '/v1/projects',
      operationId: 'createProject',
      summary: 'Create a project',
      tag: 'Projects',
      scope: 'full',
      body: CreateProjectRequest,
      responses: { 201: { description: 'The project', schema: Project } },
      handle: async ({ body, client }) => {
        await assertDomains(client.clientId, body);
        return { status: 201, body: await projects.create(client.clientId, body) };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/v1/projects',
      operationId: 'listProjects',
      summary: 'List projects',
      tag: 'Projects',
      scope: 'full',
      query: ListQuery,
      responses: { 200: { description: 'The projects, oldest first', schema: ProjectList } },
      handle: async ({ query, client }) => ({ status: 200, body: { data: await projects.list(client.clientId, query.limit ?? 50) } }),
    }),
    defineRoute({
      method: 'get',
      path: '/v1/projects/:projectId',
      tenant: { project: 'projectId' },
      operationId: 'getProject',
      summary: 'Get a project',
      tag: 'Projects',
      scope: 'full',
      params: ProjectIdParam,
      responses: { 200: { description: 'The project', schema: Project } },
      handle: async ({ params, client }) => {
        const project = await projects.get(client.clientId, params.projectId);
        if (!project) throw new NotFoundError(PROJECT_NOT_FOUND);
        return { status: 200, body: project };
      },
    }),
    defineRoute({
      method: 'patch',
      path: '/v1/projects/:projectId',
      tenant: { project: 'projectId' },
      operationId: 'updateProject',
      summary: 'Change a project',
      tag: 'Projects',
      scope: 'full',
      params: ProjectIdParam,
      body: UpdateProjectRequest,
      responses: { 200: { description: 'The changed project', schema: Project } },
      handle: async ({ params, body, client }) => {
        // Another client's project is a 404 before anything about the body is said.
        const current = await projects.get(client.clientId, params.projectId);
        if (!current) throw new NotFoundError(PROJECT_NOT_FOUND);
        await assertDomains(client.clientId, body, current);
        const project = await projects.update(client.clientId, params.projectId, body);
        if (!project) throw new NotFoundError(PROJECT_NOT_FOUND);
        onChange(params.projectId);
        return { status: 200, body: project };
      },
    }),
    defineRoute({
      method: 'delete',
      path: '/v1/projects/:projectId',
      tenant: { project: 'projectId' },
      operationId: 'deleteProject',
      summary: 'Delete a project',
      tag: 'Projects',
      scope: 'full',
      params: ProjectIdParam,
      responses: { 204: { description: 'Deleted' } },
      handle: async ({ params, client }) => {
        if (!(await projects.delete(client.clientId, params.projectId))) throw new NotFoundError(PROJECT_NOT_FOUND);
        onChange(params.projectId);
        return { status: 204 };
      },
    }),
  ];
}
