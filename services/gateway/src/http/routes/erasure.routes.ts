import { EraseAccepted, EraseRequest, Erasure, ErasureList, ErasureListQuery, ErasureParams, ProjectIdParam } from '@postbus/contracts';
import { NotFoundError } from '@postbus/errors';
import type { CommandSender } from '../../clients/command-sender';
import type { ErasureClient } from '../../clients/erasure-client';
import { EraseRequests } from '../../domain/erase-requests';
import { userRefOf } from '../../domain/user-ref';
import { defineRoute, type RouteSpec } from '../route';

export interface ErasureRouteDeps {
  commands: CommandSender;
  erasureApi: ErasureClient;
  /** The ids of the client's projects: the erasures it may see. */
  projectIdsOf: (clientId: string) => Promise<string[]>;
  /** The address of a user known by user_id, or null (an erase by user_id is also ordered before that address's triggers). */
  emailOfUser: (projectId: string, userId: string) => Promise<string | null>;
}

const ERASURE_DOWN = { 503: { description: 'The erasure service or the bus did not answer (see Retry-After)' } };

/** Erase (data plane, any key) and the erasure queue and audit (full keys). */
export function erasureRoutes({ commands, erasureApi, projectIdsOf, emailOfUser }: ErasureRouteDeps): RouteSpec[] {
  const requests = new EraseRequests({ commands, erasures: erasureApi, emailOfUser });

  return [
    defineRoute({
      method: 'post',
      path: '/v1/projects/:projectId/users/erase',
      tenant: { project: 'projectId' },
      operationId: 'eraseUser',
      summary: 'Erase user (also from an admin session of scope full: the panel acts for a support team)',
      tag: 'Users',
      scope: 'sdk',
      sessionsMayCall: true,
      params: ProjectIdParam,
      body: EraseRequest,
      responses: {
        200: {
          description: 'Accepted: the user gets no more email and is erased at erase_at; a repeat answers with the same erasure',
          schema: EraseAccepted,
        },
        ...ERASURE_DOWN,
      },
      handle: async ({ params, body, requestId }) => {
        const { erasureId, eraseAt } = await requests.erase(params.projectId, userRefOf(body), requestId);
        return { status: 200, body: { status: 'accepted', request_id: requestId, erasure_id: erasureId, erase_at: eraseAt } };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/v1/erasures',
      operationId: 'listErasures',
      summary: "List the erasure queue and audit of the client's projects",
      tag: 'Erasures',
      scope: 'full',
      query: ErasureListQuery,
      responses: { 200: { description: 'One page of erasures', schema: ErasureList }, ...ERASURE_DOWN },
      handle: async ({ query, client }) => {
        const owned = await projectIdsOf(client.clientId);
        const projectIds = query.project_id !== undefined ? owned.filter((id) => id === query.project_id) : owned;
        const { project_id: _project, ...rest } = query;
        return { status: 200, body: await erasureApi.list(projectIds, rest) };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/v1/erasures/:erasureId',
      tenant: { keptBy: 'erasure', param: 'erasureId' },
      operationId: 'getErasure',
      summary: 'Read one erasure',
      tag: 'Erasures',
      scope: 'full',
      params: ErasureParams,
      responses: { 200: { description: 'The erasure', schema: Erasure }, ...ERASURE_DOWN },
      handle: async ({ params, client }) => {
        const erasure = await erasureApi.erasure(await projectIdsOf(client.clientId), params.erasureId);
        if (!erasure) throw new NotFoundError('No such erasure for this client.');
        return { status: 200, body: erasure };
      },
    }),
  ];
}
