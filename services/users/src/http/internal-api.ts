import type { RequestHandler } from 'express';
import { InternalUserLookupQuery, InternalProjectParams, InternalUserParams, normaliseEmail, UserProfile } from '@postbus/contracts';
import { NotFoundError } from '@postbus/errors';
import { defineRoute, serveRoutes } from '@postbus/http';
import type { UserRepository } from '../model/user.repository';
import { toProfile } from './profile';

/**
 * The read API the gateway proxies to. It is internal: the gateway has already authenticated the
 * client and checked that the project is theirs.
 */
export function internalApi(users: UserRepository): RequestHandler {
  return serveRoutes([
    defineRoute({
      method: 'get',
      path: '/internal/projects/:projectId/users',
      params: InternalProjectParams,
      query: InternalUserLookupQuery,
      responses: { 200: { description: 'The user with that address', schema: UserProfile }, 404: { description: 'No such user' } },
      handle: async ({ params, query }) => {
        const user = await users.findByRef(params.projectId, { email: normaliseEmail(query.email) });
        if (!user) throw new NotFoundError('No user with that email in this project.');
        return { status: 200, body: toProfile(user) };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/internal/projects/:projectId/users/:userId',
      params: InternalUserParams,
      responses: { 200: { description: 'The user with that user_id', schema: UserProfile }, 404: { description: 'No such user' } },
      handle: async ({ params }) => {
        const user = await users.findByRef(params.projectId, { userId: params.userId });
        if (!user) throw new NotFoundError('No user with that user_id in this project.');
        return { status: 200, body: toProfile(user) };
      },
    }),
  ]);
}
