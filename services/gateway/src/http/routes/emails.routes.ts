import {
  ContentSendRequest,
  CreateEmailRequest,
  EmailParams,
  ProjectIdParam,
  SendAccepted,
  SendBatchRequest,
  SendBatchResponse,
  SendEmailRequest,
  TransactionalEmail,
  TransactionalEmailList,
  UpdateEmailRequest,
} from '@postbus/contracts';
import { ConflictError, NotFoundError, UnprocessableError } from '@postbus/errors';
import type { Sends } from '../../domain/sends';
import { fromEmailProblem, type SenderDomainState } from '../../domain/sender-address';
import type { EmailRepository } from '../../model/email.repository';
import { EMAIL_NOT_FOUND } from '../../domain/trigger-catalog';
import type { TemplateRepository } from '../../model/template.repository';
import { defineRoute, sendCallerOf, type RouteSpec } from '../route';

export interface EmailRouteDeps {
  emails: EmailRepository;
  templates: TemplateRepository;
  /** The accept path of every send. */
  sends: Sends;
  /** The sender domain of the client's project, or null. */
  senderDomainOf: (clientId: string, projectId: string) => Promise<SenderDomainState | null>;
}

/** Transactional emails (the seed's fifth prerequisite) and the trigger that sends one. */
export function emailRoutes({ emails, templates, sends, senderDomainOf }: EmailRouteDeps): RouteSpec[] {
  /** An email's own sender address is held to the same rule as the project's. */
  const assertFromEmail = async (clientId: string, projectId: string, fromEmail: string | null | undefined) => {
    if (fromEmail === undefined || fromEmail === null) return;
    const problem = fromEmailProblem(fromEmail, await senderDomainOf(clientId, projectId));
    if (problem) throw new UnprocessableError('from-email-not-on-sender-domain', problem);
  };
  const assertTemplate = async (clientId: string, projectId: string, templateId: string | undefined) => {
    if (templateId !== undefined && !(await templates.get(clientId, projectId, templateId))) {
      throw new UnprocessableError('template-missing', 'template_id names no template of this project: create the template first.');
    }
  };
  const existing = async (clientId: string, projectId: string, idOrKey: string) => {
    const found = await emails.get(clientId, projectId, idOrKey);
    if (!found) throw new NotFoundError(EMAIL_NOT_FOUND);
    return found;
  };

  return [
    defineRoute({
      method: 'post',
      path: '/v1/projects/:projectId/emails',
      tenant: { project: 'projectId' },
      operationId: 'createEmail',
      summary: 'Create a transactional email',
      tag: 'Transactional emails',
      scope: 'full',
      params: ProjectIdParam,
      body: CreateEmailRequest,
      responses: { 201: { description: 'The transactional email', schema: TransactionalEmail } },
      handle: async ({ params, body, client }) => {
        await assertTemplate(client.clientId, params.projectId, body.template_id);
        await assertFromEmail(client.clientId, params.projectId, body.from_email);
        const created = await emails.create(client.clientId, params.projectId, body);
        if (created === 'exists') throw new ConflictError('email-key-taken', `This project already has an email with the key ${body.key}.`);
        return { status: 201, body: created };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/v1/projects/:projectId/emails',
      tenant: { project: 'projectId' },
      operationId: 'listEmails',
      summary: 'List transactional emails',
      tag: 'Transactional emails',
      scope: 'full',
      params: ProjectIdParam,
      responses: { 200: { description: 'The transactional emails, oldest first', schema: TransactionalEmailList } },
      handle: async ({ params, client }) => {
        return { status: 200, body: { data: await emails.list(client.clientId, params.projectId) } };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/v1/projects/:projectId/emails/:emailKey',
      tenant: { project: 'projectId' },
      operationId: 'getEmail',
      summary: 'Get a transactional email by id or key',
      tag: 'Transactional emails',
      scope: 'full',
      params: EmailParams,
      responses: { 200: { description: 'The transactional email', schema: TransactionalEmail } },
      handle: async ({ params, client }) => ({ status: 200, body: await existing(client.clientId, params.projectId, params.emailKey) }),
    }),
    defineRoute({
      method: 'patch',
      path: '/v1/projects/:projectId/emails/:emailKey',
      tenant: { project: 'projectId' },
      operationId: 'updateEmail',
      summary: 'Change a transactional email',
      tag: 'Transactional emails',
      scope: 'full',
      params: EmailParams,
      body: UpdateEmailRequest,
      responses: { 200: { description: 'The changed transactional email', schema: TransactionalEmail } },
      handle: async ({ params, body, client }) => {
        const found = await existing(client.clientId, params.projectId, params.emailKey);
        await assertTemplate(client.clientId, params.projectId, body.template_id);
        await assertFromEmail(client.clientId, params.projectId, body.from_email);
        const updated = await emails.update(client.clientId, params.projectId, found.id, body);
        if (updated === 'exists')
          throw new ConflictError('email-key-taken', `This project already has an email with the key ${body.key ?? ''}.`);
        if (!updated) throw new NotFoundError(EMAIL_NOT_FOUND);
        return { status: 200, body: updated };
      },
    }),
    defineRoute({
      method: 'delete',
      path: '/v1/projects/:projectId/emails/:emailKey',
      tenant: { project: 'projectId' },
      operationId: 'deleteEmail',
      summary: 'Delete a transactional email',
      tag: 'Transactional emails',
      scope: 'full',
      params: EmailParams,
      responses: { 204: { description: 'Deleted' } },
      handle: async ({ params, client }) => {
        const found = await existing(client.clientId, params.projectId, params.emailKey);
        if (!(await emails.delete(client.clientId, params.projectId, found.id))) throw new NotFoundError(EMAIL_NOT_FOUND);
        return { status: 204 };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/v1/projects/:projectId/emails/:emailKey/send',
      tenant: { project: 'projectId' },
      operationId: 'sendEmail',
      summary: 'Send system / trigger email',
      tag: 'Transactional emails',
      scope: 'sdk',
      testKeysMayCall: true,
      params: EmailParams,
      body: SendEmailRequest,
      responses: { 200: { description: 'Accepted: validated against the catalog and durably queued', schema: SendAccepted } },
      handle: async (context) => ({
        status: 200,
        body: await sends.template(sendCallerOf(context), context.params.projectId, context.params.emailKey, context.body),
      }),
    }),
    defineRoute({
      method: 'post',
      path: '/v1/projects/:projectId/emails/send',
      tenant: { project: 'projectId' },
      operationId: 'sendContentEmail',
      summary: 'Send an email with its content (no stored template): subject, HTML and/or text, as your app made them',
      tag: 'Transactional emails',
      scope: 'sdk',
      testKeysMayCall: true,
      params: ProjectIdParam,
      body: ContentSendRequest,
      responses: { 200: { description: 'Accepted: checked against the project and durably queued', schema: SendAccepted } },
      handle: async (context) => ({
        status: 200,
        body: await sends.content(sendCallerOf(context), context.params.projectId, context.body),
      }),
    }),
    defineRoute({
      method: 'post',
      path: '/v1/projects/:projectId/emails/batch',
      tenant: { project: 'projectId' },
      operationId: 'sendEmailBatch',
      summary: 'Send up to 500 emails at once (template sends and content sends), each accepted or rejected on its own',
      tag: 'Transactional emails',
      scope: 'sdk',
      testKeysMayCall: true,
      params: ProjectIdParam,
      body: SendBatchRequest,
      responses: { 200: { description: 'Every message accepted or rejected, in order', schema: SendBatchResponse } },
      handle: async (context) => ({
        status: 200,
        body: {
          request_id: context.requestId,
          data: await sends.batch(sendCallerOf(context), context.params.projectId, context.body.messages),
        },
      }),
    }),
  ];
}
