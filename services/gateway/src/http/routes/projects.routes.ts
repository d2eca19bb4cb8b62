import { CreateProjectRequest, ListQuery, Project, ProjectIdParam, ProjectList, UpdateProjectRequest } from '@postbus/contracts';
import { NotFoundError, UnprocessableError } from '@postbus/errors';
import { fromEmailProblem, type SenderDomainState } from '../../domain/sender-address';
import type { ProjectRepository } from '../../model/project.repository';
import { defineRoute, type RouteSpec } from '../route';

const PROJECT_NOT_FOUND = 'No such project for this client.';

/** Management of projects (scope full). */
export function projectRoutes(
  projects: ProjectRepository,
  onChange: (projectId: string) => void,
  /** The client's domain of that kind with this id, or null. */
  domainOf: (clientId: string, kind: 'sender' | 'tracking', id: string) => Promise<SenderDomainState | null>,
): RouteSpec[] {
  /** `current`: the project as it is (PATCH); what the body leaves out keeps its value. */
  const assertDomains = async (clientId: string, body: UpdateProjectRequest, current: Project | null = null) => {
    const sender = body.sender_domain_id ? await domainOf(clientId, 'sender', body.sender_domain_id) : null;
    if (body.sender_domain_id && !sender) {
      throw new UnprocessableError('sender-domain-missing', "sender_domain_id names none of this client's sender domains.");
    }
    if (body.tracking_domain_id && !(await domainOf(clientId, 'tracking', body.tracking_domain_id))) {
      throw new UnprocessableError('tracking-domain-missing', "tracking_domain_id names none of this client's tracking domains.");
    }
    // The sender address is checked whenever it or the sender domain changes.
    if (body.from_email === undefined && body.sender_domain_id === undefined) return;
    const fromEmail = body.from_email !== undefined ? body.from_email : (current?.from_email ?? null);
    if (fromEmail === null) return;
    const senderId = body.sender_domain_id !== undefined ? body.sender_domain_id : (current?.sender_domain_id ?? null);
    const problem = fromEmailProblem(fromEmail, sender ?? (senderId ? await domainOf(clientId, 'sender', senderId) : null));
    if (problem) throw new UnprocessableError('from-email-not-on-sender-domain', problem);
  };
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
