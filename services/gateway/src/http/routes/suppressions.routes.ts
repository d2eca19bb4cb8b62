import {
  Accepted,
  CreateSuppressionRequest,
  normaliseEmail,
  ProjectIdParam,
  SuppressionList,
  SuppressionListQuery,
  SuppressionParams,
  Topics,
  userOrderingKey,
} from '@postbus/contracts';
import type { MailerClient } from '../../clients/mailer-client';
import type { CommandSender } from '../../clients/command-sender';
import { unsuppressCommand } from '../../domain/suppression-lifts';
import { defineRoute, type RouteSpec } from '../route';

export interface SuppressionRouteDeps {
  commands: CommandSender;
  mailerApi: MailerClient;
}

const MAILER_DOWN = { 503: { description: 'The mailer service or the bus did not answer (see Retry-After)' } };
const ACCEPTED = { 200: { description: 'Accepted: validated and durably queued, in order with the address’s sends', schema: Accepted } };

/**
 * The project's suppression list, kept by the mailer (the owner of that data): read from its
 * internal API; the client's changes travel as commands among the address's email commands, so a
 * send accepted after one is handled after it.
 */
export function suppressionRoutes({ commands, mailerApi }: SuppressionRouteDeps): RouteSpec[] {
  return [
    defineRoute({
      method: 'get',
      path: '/v1/projects/:projectId/suppressions',
      tenant: { project: 'projectId' },
      operationId: 'listSuppressions',
      summary:
        'List the addresses of a project that get no mail, newest first, with the reason and the message that caused it; filter by email and reason (a page may hold fewer than limit with a next_cursor: read on)',
      tag: 'Suppressions',
      scope: 'full',
      params: ProjectIdParam,
      query: SuppressionListQuery,
      responses: {
        200: { description: 'One page of suppressions; pass next_cursor as cursor for the next one', schema: SuppressionList },
        ...MAILER_DOWN,
      },
      handle: async ({ params, query }) => {
        const filter = query.email === undefined ? query : { ...query, email: normaliseEmail(query.email) };
        return { status: 200, body: await mailerApi.listSuppressions(params.projectId, filter) };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/v1/projects/:projectId/suppressions',
      tenant: { project: 'projectId' },
      operationId: 'createSuppression',
      summary: 'Suppress an address for every email of the project (reason manual): its later sends become suppressed messages',
      tag: 'Suppressions',
      scope: 'full',
      params: ProjectIdParam,
      body: CreateSuppressionRequest,
      responses: { ...ACCEPTED, ...MAILER_DOWN },
      handle: async ({ params, body, requestId }) => {
        const email = normaliseEmail(body.email);
        await commands.send(
          Topics.EmailCommands,
          'email.suppress',
          userOrderingKey(params.projectId, { email }),
          { projectId: params.projectId, email, acceptedAt: new Date().toISOString() },
          requestId,
        );
        return { status: 200, body: { status: 'accepted', request_id: requestId } };
      },
    }),
    defineRoute({
      method: 'delete',
      path: '/v1/projects/:projectId/suppressions/:email',
      tenant: { project: 'projectId' },
      operationId: 'deleteSuppression',
      summary:
        'Reactivate a suppressed address: a later send mails it again. For an unsubscribe, the user is subscribed again: the client asserts the recipient consented. Refused (409) for a complaint, whose recipient asked for no mail',
      tag: 'Suppressions',
      scope: 'full',
      params: SuppressionParams,
      responses: {
        ...ACCEPTED,
        404: { description: 'The address is not suppressed in this project' },
        409: { description: 'The suppression is a complaint: the recipient reported a message as spam, and the suppression stays' },
        ...MAILER_DOWN,
      },
      handle: async ({ params, requestId }) => {
        const email = normaliseEmail(params.email);
        const [current] = (await mailerApi.listSuppressions(params.projectId, { email, limit: 1 })).data;
        const command = unsuppressCommand(params.projectId, email, current, new Date());
        // Among the address's email commands: a send accepted after this 200 is handled after it.
        await commands.send(Topics.EmailCommands, 'email.unsuppress', userOrderingKey(params.projectId, { email }), command, requestId);
        return { status: 200, body: { status: 'accepted', request_id: requestId } };
      },
    }),
  ];
}
