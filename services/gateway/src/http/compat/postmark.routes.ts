import {
  ContentSendRequest,
  MessageParams,
  POSTMARK_BATCH_MAX,
  PostmarkBatch,
  PostmarkBatchResponse,
  PostmarkError,
  PostmarkMessage,
  PostmarkMessageParams,
  PostmarkOutboundMessageDetails,
  PostmarkSendResponse,
  PostmarkTemplateBatch,
  PostmarkTemplateMessage,
  SendEmailRequest,
  type TransactionalEmail,
} from '@postbus/contracts';
import { AppError, NotFoundError, ValidationError } from '@postbus/errors';
import { compileBody, toFieldErrors, type Validator } from '@postbus/http';
import {
  answerPostmarkError,
  contentRecipientOf,
  contentSendOf,
  outboundDetailsOf,
  POSTMARK_CODES,
  postmarkErrorOf,
  PostmarkRefusal,
  sendPostmarkBatch,
  sendingResponseOf,
  senderRefusal,
  suppressionRefusal,
  templateSendOf,
  type PreparedItem,
} from '../../domain/compat/postmark';
import type { MessageReads } from '../../domain/message-reads';
import type { EmailLookup, ProjectLookup } from '../../domain/ports/catalog';
import type { Sends } from '../../domain/sends';
import type { CompatibleApi } from '../compat';
import { credentialsProject, defineRoute, sendCallerOf } from '../route';
import { sendSchemaChecks } from '../send-checks';

export interface PostmarkApiDeps {
  sends: Pick<Sends, 'content' | 'template' | 'batch'>;
  reads: Pick<MessageReads, 'read' | 'content'>;
  /** The suppressed ones among a few addresses of a project, with their reasons (the mailer's point reads of its markers). */
  suppressedAmong: (projectId: string, emails: string[]) => Promise<Array<{ email: string; reason: string }>>;
  /** A template send's email (its sender, and whether it goes to the unsubscribed) and the project's sender. */
  emails: EmailLookup;
  projects: ProjectLookup;
}

const { isAddress } = sendSchemaChecks;
const checkPostmarkMessage = compileBody(PostmarkMessage);
const checkPostmarkTemplate = compileBody(PostmarkTemplateMessage);
const checkContentSend = compileBody(ContentSendRequest);
const checkTemplateSend = compileBody(SendEmailRequest);
const MESSAGE_ID = new RegExp(MessageParams.properties.messageId.pattern!);

/** Throws the schema's field errors (a Postmark message's, or the core send it became), answered as ErrorCode 300. */
function assertValid<T>(check: Validator, value: unknown): asserts value is T {
  if (check(value)) return;
  const errors = toFieldErrors(check.errors);
  throw new ValidationError(`The message has ${errors.length} invalid field${errors.length === 1 ? '' : 's'}.`, errors);
}

const ERRORS = {
  401: { description: 'ErrorCode 10: no key, a bad one, or one bound to no project', schema: PostmarkError },
  422: {
    description: "Postmark's ErrorCode and Message: 300 invalid, 400 sender, 406 inactive recipient, 411 attachment, …",
    schema: PostmarkError,
  },
};

/** A Postmark batch of more than 500 messages is refused whole, as Postmark does. */
function refuseLargeBatch(count: number): void {
  if (count > POSTMARK_BATCH_MAX)
    throw new PostmarkRefusal(
      POSTMARK_CODES.tooManyBatchMessages,
      `Too many batch messages: a batch holds at most ${POSTMARK_BATCH_MAX} messages, this one ${count}.`,
    );
}

/** A batch item's refusal as its answer; anything but the client's fault fails the whole request. */
function refusedItem(error: unknown): PreparedItem {
  if (error instanceof AppError && error.status < 500) return { refused: postmarkErrorOf(error.toProblem()).body };
  throw error;
}

/**
 * Postmark's email API at the gateway's root (docs/moving-from-postmark.md): each send mapped onto
 * the core's accept path (Sends) and each read onto its message read, under a key bound to one
 * project, with Postmark's error codes. The recipient's suppression is a 406 at once, read from the
 * mailer's suppression markers: only these routes pay that read.
 */
export function postmarkApi({ sends, reads, suppressedAmong, emails, projects }: PostmarkApiDeps): CompatibleApi {
  /** A template send's email, checked against what the send says; its sender's reads shared by a batch's messages. */
  const templateEmails = (clientId: string, projectId: string) => {
    const found = new Map<string, Promise<TransactionalEmail | null>>();
    let projectFrom: Promise<string | null> | undefined;
    return async (emailKey: string, from: string | undefined): Promise<TransactionalEmail> => {
      if (!found.has(emailKey)) found.set(emailKey, emails.get(clientId, projectId, emailKey));
      const email = await found.get(emailKey)!;
      if (!email)
        throw new PostmarkRefusal(
          POSTMARK_CODES.templateNotFound,
          `The template '${emailKey}' does not exist: TemplateAlias names no transactional email of this project.`,
        );
      if (from !== undefined) {
        const sender = email.from_email ?? (await (projectFrom ??= projects.get(clientId, projectId).then((p) => p?.from_email ?? null)));
        const refusal = senderRefusal(email.key, from, sender);
        if (refusal) throw refusal;
      }
      return email;
    };
  };

  /** Refuses a send whose recipient the project's mail would not reach (406), by the mailer's markers. */
  const refuseInactive = async (projectId: string, recipient: string, sendsToUnsubscribed: boolean) => {
    const refusal = suppressionRefusal(await suppressedAmong(projectId, [recipient]), recipient, sendsToUnsubscribed);
    if (refusal) throw refusal;
  };

  const sendTemplate = async (context: Parameters<typeof sendCallerOf>[0], body: PostmarkTemplateMessage) => {
    const projectId = credentialsProject(context.client);
    const { emailKey, send, from } = templateSendOf(body, isAddress);
    assertValid<SendEmailRequest>(checkTemplateSend, send);
    const email = await templateEmails(context.client.clientId, projectId)(emailKey, from);
    await refuseInactive(projectId, send.user.email, email.send_to_unsubscribed);
    try {
      return await sends.template(sendCallerOf(context), projectId, emailKey, send);
    } catch (error) {
      // Deleted since it was read: the same answer as one that never was.
      if (error instanceof NotFoundError)
        throw new PostmarkRefusal(POSTMARK_CODES.templateNotFound, `The template '${emailKey}' does not exist.`);
      throw error;
    }
  };

  /**
   * A Postmark batch: each message prepared on its own by `prepareFor`'s function (what it throws
   * answers that message alone), then those ready sent together through the core's batch send.
   */
  const sendBatch = async (
    context: Parameters<typeof sendCallerOf>[0],
    messages: unknown[],
    prepareFor: (projectId: string) => (raw: unknown) => PreparedItem | Promise<PreparedItem>,
  ) => {
    const projectId = credentialsProject(context.client);
    refuseLargeBatch(messages.length);
    const prepare = prepareFor(projectId);
    const prepared = await Promise.all(
      messages.map(async (raw): Promise<PreparedItem> => {
        try {
          return await prepare(raw);
        } catch (error) {
          return refusedItem(error);
        }
      }),
    );
    const body = await sendPostmarkBatch(prepared, {
      suppressedAmong: (addresses) => suppressedAmong(projectId, addresses),
      sendBatch: (items) => sends.batch(sendCallerOf(context), projectId, items),
      now: () => new Date(),
    });
    return { status: 200, body };
  };

  const routes = [
    defineRoute({
      method: 'post',
      path: '/email',
      tenant: { credentials: true },
      operationId: 'postmarkSendEmail',
      summary: 'Send one message with its content (Postmark: POST /email)',
      tag: 'Postmark',
      scope: 'sdk',
      testKeysMayCall: true,
      body: PostmarkMessage,
      responses: { 200: { description: 'Accepted and queued', schema: PostmarkSendResponse }, ...ERRORS },
      handle: async (context) => {
        const projectId = credentialsProject(context.client);
        const send = contentSendOf(context.body, isAddress);
        assertValid<ContentSendRequest>(checkContentSend, send);
        await refuseInactive(projectId, contentRecipientOf(send), false);
        const accepted = await sends.content(sendCallerOf(context), projectId, send);
        return { status: 200, body: sendingResponseOf(context.body.To, accepted.message_id, new Date()) };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/email/withTemplate',
      tenant: { credentials: true },
      operationId: 'postmarkSendEmailWithTemplate',
      summary:
        "Send one of the project's transactional emails: TemplateAlias is its key, TemplateModel its data (Postmark: POST /email/withTemplate)",
      tag: 'Postmark',
      scope: 'sdk',
      testKeysMayCall: true,
      body: PostmarkTemplateMessage,
      responses: { 200: { description: 'Accepted and queued', schema: PostmarkSendResponse }, ...ERRORS },
      handle: async (context) => {
        const accepted = await sendTemplate(context, context.body);
        return { status: 200, body: sendingResponseOf(context.body.To, accepted.message_id, new Date()) };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/email/batch',
      tenant: { credentials: true },
      operationId: 'postmarkSendEmailBatch',
      summary: 'Send up to 500 messages with their content, each accepted or refused on its own (Postmark: POST /email/batch)',
      tag: 'Postmark',
      scope: 'sdk',
      testKeysMayCall: true,
      body: PostmarkBatch,
      responses: { 200: { description: "One answer per message, in the request's order", schema: PostmarkBatchResponse }, ...ERRORS },
      handle: (context) =>
        sendBatch(context, context.body, () => (raw) => {
          assertValid<PostmarkMessage>(checkPostmarkMessage, raw);
          const item = contentSendOf(raw, isAddress);
          return { item, to: raw.To, recipient: contentRecipientOf(item), sendsToUnsubscribed: false };
        }),
    }),
    defineRoute({
      method: 'post',
      path: '/email/batchWithTemplates',
      tenant: { credentials: true },
      operationId: 'postmarkSendEmailBatchWithTemplates',
      summary:
        "Send up to 500 of the project's transactional emails, each accepted or refused on its own (Postmark: POST /email/batchWithTemplates)",
      tag: 'Postmark',
      scope: 'sdk',
      testKeysMayCall: true,
      body: PostmarkTemplateBatch,
      responses: { 200: { description: "One answer per message, in the request's order", schema: PostmarkBatchResponse }, ...ERRORS },
      handle: (context) =>
        sendBatch(context, context.body.Messages, (projectId) => {
          const emailOf = templateEmails(context.client.clientId, projectId);
          return async (raw) => {
            assertValid<PostmarkTemplateMessage>(checkPostmarkTemplate, raw);
            const { emailKey, send, from } = templateSendOf(raw, isAddress);
            const email = await emailOf(emailKey, from);
            const item = { email_key: emailKey, ...send };
            return { item, to: raw.To, recipient: send.user.email, sendsToUnsubscribed: email.send_to_unsubscribed };
          };
        }),
    }),
    defineRoute({
      method: 'get',
      path: '/messages/outbound/:messageId/details',
      tenant: { credentials: true, param: 'messageId' },
      operationId: 'postmarkGetOutboundMessageDetails',
      summary: 'Read a message: its recipients, status, events and rendered bodies (Postmark: GET /messages/outbound/{messageid}/details)',
      tag: 'Postmark',
      // A Postmark server token reads its server's messages: a key bound to the project reads that project's.
      scope: 'sdk',
      testKeysMayCall: true,
      params: PostmarkMessageParams,
      responses: {
        200: { description: 'The message', schema: PostmarkOutboundMessageDetails },
        ...ERRORS,
        422: { description: 'ErrorCode 701: no such message in this project', schema: PostmarkError },
      },
      handle: async ({ params, client }) => {
        const projectId = credentialsProject(client);
        const caller = { test: client.scope === 'test' };
        const notFound = new PostmarkRefusal(POSTMARK_CODES.messageNotFound, 'This message was not found.');
        if (!MESSAGE_ID.test(params.messageId)) throw notFound;
        const [message, content] = await Promise.all([
          reads.read(caller, projectId, params.messageId),
          reads.content(caller, projectId, params.messageId),
        ]);
        if (!message) throw notFound;
        return { status: 200, body: outboundDetailsOf(message, content) };
      },
    }),
  ];

  return {
    name: 'postmark',
    title: 'Postbus: the Postmark-compatible email API',
    routes,
    tokenHeader: 'x-postmark-server-token',
    sends: [
      { path: /^\/email\/?$/i, kind: 'send', messagesOf: () => 1 },
      { path: /^\/email\/withTemplate\/?$/i, kind: 'send', messagesOf: () => 1 },
      { path: /^\/email\/batch\/?$/i, kind: 'batch', messagesOf: (body) => (Array.isArray(body) ? body.length : 0) },
      {
        path: /^\/email\/batchWithTemplates\/?$/i,
        kind: 'batch',
        messagesOf: (body) => {
          const messages = (body as { Messages?: unknown } | undefined)?.Messages;
          return Array.isArray(messages) ? messages.length : 0;
        },
      },
    ],
    answerError: answerPostmarkError,
  };
}
