import { Type } from '@sinclair/typebox';
import {
  Accepted,
  CreateUserRequest,
  normaliseEmail,
  ProjectIdParam,
  Topics,
  UnsubscribeRequest,
  UpdateUserByEmailRequest,
  UpdateUserByIdRequest,
  UserId,
  UserLookupQuery,
  userOrderingKey,
  UserProfile,
  type MessageData,
  type MessageTypeOn,
  type UserRef,
} from '@postbus/contracts';
import { NotFoundError } from '@postbus/errors';
import type { CommandSender } from '../../clients/command-sender';
import type { UsersClient } from '../../clients/users-client';
import { userRefOf } from '../../domain/user-ref';
import { defineRoute, type Reply, type RouteSpec } from '../route';

export interface UserRouteDeps {
  commands: CommandSender;
  usersApi: UsersClient;
}

const ACCEPTED = { 200: { description: 'Accepted: validated and durably queued', schema: Accepted } };
const ProjectUserParams = Type.Object({ projectId: ProjectIdParam.properties.projectId, userId: UserId });

/** The user operations of the data plane (any key) and the profile reads. */
export function userRoutes({ commands, usersApi }: UserRouteDeps): RouteSpec[] {
  const accept = async <T extends MessageTypeOn<typeof Topics.UserCommands>>(
    type: T,
    key: string,
    data: MessageData<T>,
    requestId: string,
  ): Promise<Reply> => {
    await commands.send(Topics.UserCommands, type, key, data, requestId);
    return { status: 200, body: { status: 'accepted', request_id: requestId } };
  };
  const acceptUpdate = (projectId: string, user: UserRef, fields: Record<string, unknown>, requestId: string) =>
    accept('user.update', userOrderingKey(projectId, user), { projectId, user, fields, acceptedAt: new Date().toISOString() }, requestId);

  return [
    defineRoute({
      method: 'post',
      path: '/v1/projects/:projectId/users',
      tenant: { project: 'projectId' },
      operationId: 'createUser',
      summary: 'Create omnichannel user',
      tag: 'Users',
      scope: 'sdk',
      params: ProjectIdParam,
      body: CreateUserRequest,
      responses: ACCEPTED,
      handle: async ({ params, body, requestId }) => {
        const email = normaliseEmail(body.email);
        return accept(
          'user.create',
          userOrderingKey(params.projectId, { email }),
          {
            projectId: params.projectId,
            email,
            ...(body.user_id !== undefined ? { userId: body.user_id } : {}),
            ...(body.fields ? { fields: body.fields } : {}),
          },
          requestId,
        );
      },
    }),
    defineRoute({
      method: 'patch',
      path: '/v1/projects/:projectId/users/by-email',
      tenant: { project: 'projectId' },
      operationId: 'updateUserByEmail',
      summary: 'Update user data by project ID and email',
      tag: 'Users',
      scope: 'sdk',
      params: ProjectIdParam,
      body: UpdateUserByEmailRequest,
      responses: ACCEPTED,
      handle: async ({ params, body, requestId }) => {
        return acceptUpdate(params.projectId, userRefOf(body), body.fields, requestId);
      },
    }),
    defineRoute({
      method: 'patch',
      path: '/v1/projects/:projectId/users/:userId',
      tenant: { project: 'projectId' },
      operationId: 'updateUserByUserId',
      summary: 'Update user data by user_id',
      tag: 'Users',
      scope: 'sdk',
      params: ProjectUserParams,
      body: UpdateUserByIdRequest,
      responses: ACCEPTED,
      handle: async ({ params, body, requestId }) => {
        return acceptUpdate(params.projectId, { userId: params.userId }, body.fields, requestId);
      },
    }),
    defineRoute({
      method: 'post',
      path: '/v1/projects/:projectId/users/unsubscribe',
      tenant: { project: 'projectId' },
      operationId: 'unsubscribeUser',
      summary: 'Unsubscribe a user (also from an admin session of scope full: the panel acts for a support team)',
      tag: 'Users',
      scope: 'sdk',
      sessionsMayCall: true,
      params: ProjectIdParam,
      body: UnsubscribeRequest,
      responses: ACCEPTED,
      handle: async ({ params, body, requestId }) => {
        const user = userRefOf(body);
        return accept(
          'user.unsubscribe',
          userOrderingKey(params.projectId, user),
          {
            projectId: params.projectId,
            user,
            ...(body.reason !== undefined ? { reason: body.reason } : {}),
            acceptedAt: new Date().toISOString(),
          },
          requestId,
        );
      },
    }),
    defineRoute({
      method: 'get',
      path: '/v1/projects/:projectId/users',
      tenant: { project: 'projectId' },
      operationId: 'getUserByEmail',
      summary: 'Read a user profile by email',
      tag: 'Users',
      scope: 'full',
      params: ProjectIdParam,
      query: UserLookupQuery,
      responses: { 200: { description: 'The user profile', schema: UserProfile } },
      handle: async ({ params, query }) => {
        const profile = await usersApi.byEmail(params.projectId, normaliseEmail(query.email));
        if (!profile) throw new NotFoundError('No user with that email in this project.');
        return { status: 200, body: profile };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/v1/projects/:projectId/users/:userId',
      tenant: { project: 'projectId' },
      operationId: 'getUserByUserId',
      summary: 'Read a user profile by user_id',
      tag: 'Users',
      scope: 'full',
      params: ProjectUserParams,
      responses: { 200: { description: 'The user profile', schema: UserProfile } },
      handle: async ({ params }) => {
        const profile = await usersApi.byUserId(params.projectId, params.userId);
        if (!profile) throw new NotFoundError('No user with that user_id in this project.');
        return { status: 200, body: profile };
      },
    }),
  ];
}
