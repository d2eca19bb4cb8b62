import { Message, MessageList, MessageListQuery, MessageParams, normaliseEmail, ProjectIdParam } from '@postbus/contracts';
import { NotFoundError } from '@postbus/errors';
import type { MailerClient } from '../../mailer-client';
import { defineRoute, type RouteSpec } from '../route';

export interface MessageRouteDeps {
  mailerApi: MailerClient;
  /** Resolves when the project exists and belongs to the client; throws NotFoundError otherwise. */
  assertProject: (clientId: string, projectId: string) => Promise<void>;
}

const MAILER_DOWN = { 503: { description: 'The mailer service did not answer (see Retry-After)' } };

/** The message log, read from the mailer (the owner of that data): any key, or an admin session. */
export function messageRoutes({ mailerApi, assertProject }: MessageRouteDeps): RouteSpec[] {
  return [
    defineRoute({
      method: 'get',
      path: '/v1/projects/:projectId/messages',
      operationId: 'listMessages',
      summary: 'List the messages of a project, newest first, with their status and timeline',
      tag: 'Messages',
      scope: 'full',
      params: ProjectIdParam,
      query: MessageListQuery,
      responses: {
        200: { description: 'One page of messages; pass next_cursor as cursor for the next one', schema: MessageList },
        ...MAILER_DOWN,
      },
      handle: async ({ params, query, client }) => {
        await assertProject(client.clientId, params.projectId);
        const filter = query.email === undefined ? query : { ...query, email: normaliseEmail(query.email) };
        return { status: 200, body: await mailerApi.listMessages(params.projectId, filter) };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/v1/projects/:projectId/messages/:messageId',
      operationId: 'getMessage',
      summary: 'Read one message with its status and event timeline',
      tag: 'Messages',
      scope: 'full',
      params: MessageParams,
      responses: { 200: { description: 'The message', schema: Message }, ...MAILER_DOWN },
      handle: async ({ params, client }) => {
        await assertProject(client.clientId, params.projectId);
        const message = await mailerApi.message(params.projectId, params.messageId);
        if (!message) throw new NotFoundError('No such message in this project.');
        return { status: 200, body: message };
      },
    }),
  ];
}
