import { setTimeout as sleep } from 'node:timers/promises';
import {
  RESEND_BATCH_VALIDATION,
  ResendBatchItem,
  ResendBatchRequest,
  ResendBatchResponse,
  ResendEmail,
  ResendEmailParams,
  ResendEmailRef,
  ResendError,
  ResendSendRequest,
  ResendSendResponse,
  ResendUpdateRequest,
  type Message,
  type SendBatchResult,
} from '@postbus/contracts';
import { AppError, ConflictError, NotFoundError, ValidationError, type FieldError } from '@postbus/errors';
import { compileBody, toFieldErrors } from '@postbus/http';
import {
  answerResendError,
  isMessageId,
  resendBatchItemOf,
  resendEmailOf,
  resendErrorOf,
  resendSendOf,
  ResendRefusal,
  scheduledAtOf,
  type SendMapping,
} from '../../domain/compat/resend';
import type { MessageReads, ReadCaller } from '../../domain/message-reads';
import { refuseBadSendAt } from '../../domain/message-options';
import type { Sends } from '../../domain/sends';
import type { AuthenticatedClient } from '../auth';
import type { CompatibleApi } from '../compat';
import { credentialsProject, defineRoute, sendCallerOf } from '../route';
import { sendSchemaChecks } from '../send-checks';

export interface ResendApiDeps {
  sends: Pick<Sends, 'content' | 'template' | 'batch'>;
  reads: Pick<MessageReads, 'read' | 'recorded' | 'content' | 'cancel'>;
  /** Moves a scheduled message to another time (the mailer's reschedule); its 404 and 409 thrown as they are. */
  reschedule: (projectId: string, messageId: string, sendAt: string) => Promise<Message>;
  /** How long a cancel or a change of time waits for the mailer to record a message accepted a moment before. */
  recordWaitMs?: number;
}

const checkBatchItem = compileBody(ResendBatchItem);

/** Throws field errors (of a Resend email, or of the core send it became) as a 400 naming each field. */
function assertNoErrors(errors: FieldError[]): void {
  if (errors.length > 0)
    throw new ValidationError(`The email has ${errors.length} invalid field${errors.length === 1 ? '' : 's'}.`, errors);
}

const ERRORS = {
  400: { description: 'validation_error (a field), invalid_idempotency_key', schema: ResendError },
  401: { description: 'missing_api_key; restricted_api_key (the key may not call this)', schema: ResendError },
  403: {
    description: 'invalid_api_key (also: a key bound to no project); validation_error (a From not on the verified domain)',
    schema: ResendError,
  },
  404: { description: 'not_found', schema: ResendError },
  409: {
    description: 'invalid_idempotent_request, concurrent_idempotent_requests; validation_error (not scheduled any more)',
    schema: ResendError,
  },
  422: { description: 'missing_required_field, invalid_from_address, invalid_attachment, validation_error', schema: ResendError },
  429: { description: 'rate_limit_exceeded', schema: ResendError },
  503: { description: 'application_error: a service did not answer (Retry-After)', schema: ResendError },
};

const readerOf = (client: AuthenticatedClient): ReadCaller => ({ test: client.scope === 'test' });

/** How a batch is judged (Resend's x-batch-validation): strict refuses the whole batch for one bad email. */
function batchValidationOf(header: string | undefined): (typeof RESEND_BATCH_VALIDATION)[number] {
  const mode = (header ?? 'strict').trim().toLowerCase();
  if ((RESEND_BATCH_VALIDATION as readonly string[]).includes(mode)) return mode as (typeof RESEND_BATCH_VALIDATION)[number];
  throw new ResendRefusal('validation_error', `Invalid \`x-batch-validation\` header: ${RESEND_BATCH_VALIDATION.join(' or ')}.`, 400);
}

/** One email of a batch, prepared: the core's batch item, or the problem that refuses it. */
type PreparedEmail = { item: Record<string, unknown> } | { refused: ResendError };

/** A batch's email checked (its schema, Resend's batch rules, the core's schema) and mapped onto the core's batch item. */
function prepareEmail(raw: unknown, mapping: SendMapping): PreparedEmail {
  try {
    if (typeof raw === 'object' && raw !== null && 'attachments' in raw)
      throw new ResendRefusal(
        'validation_error',
        'Attachments are not supported in a batch: send an email with attachments on its own (POST /emails).',
      );
    if (!checkBatchItem(raw)) assertNoErrors(toFieldErrors(checkBatchItem.errors));
    const item = resendBatchItemOf(raw as ResendBatchItem, mapping);
    assertNoErrors('email_key' in item ? sendSchemaChecks.checkTemplateItem(item) : sendSchemaChecks.checkContentItem(item));
    return { item };
  } catch (error) {
    if (!(error instanceof AppError) || error.status >= 500) throw error;
    return { refused: resendErrorOf(error.toProblem()).body };
  }
}

/** The core's rejection of a batch item as Resend's message (its pointers located in the email, not the core's batch). */
function rejectionMessage(result: Extract<SendBatchResult, { status: 'rejected' }>): string {
  const { error } = result;
  return resendErrorOf({ ...error, errors: error.errors?.map((e) => ({ ...e, pointer: e.pointer.replace(/^\/messages\/\d+/, '') })) }).body
    .message;
}

/**
 * Resend's email API at the gateway's root (docs/moving-from-resend.md): each send mapped onto the
 * core's accept path (Sends), each read onto its message read, a cancel and a change of time onto
 * the mailer's, under a key bound to one project, with Resend's error names.
 */
export function resendApi({ sends, reads, reschedule, recordWaitMs = 5_000 }: ResendApiDeps): CompatibleApi {
  /**
   * A cancel or a change of time needs the mailer's record of the message: one accepted a moment
   * ago (on the bus, not recorded yet) is waited for a few seconds, as Resend's SDK users cancel
   * right after they send.
   */
  const whenRecorded = async (reader: ReadCaller, projectId: string, emailId: string): Promise<void> => {
    if (!isMessageId(emailId)) throw new NotFoundError('Email not found.');
    const deadline = Date.now() + recordWaitMs;
    for (;;) {
      // The mailer's own record: a scheduled send reads as scheduled from the bus before the mailer holds it.
      if (await reads.recorded(reader, projectId, emailId)) return;
      if (!(await reads.read(reader, projectId, emailId))) throw new NotFoundError('Email not found.');
      if (Date.now() >= deadline)
        throw new ConflictError('not-recorded-yet', 'The email was accepted a moment ago and is not recorded yet: retry in a few seconds.');
      await sleep(100);
    }
  };

  const routes = [
    defineRoute({
      method: 'post',
      path: '/emails',
      tenant: { credentials: true },
      operationId: 'resendSendEmail',
      summary: "Send an email with its content, or one of the project's emails with `template` (Resend: POST /emails)",
      tag: 'Resend',
      scope: 'sdk',
      testKeysMayCall: true,
      body: ResendSendRequest,
      responses: { 200: { description: 'Accepted and queued (or scheduled)', schema: ResendSendResponse }, ...ERRORS },
      handle: async (context) => {
        const projectId = credentialsProject(context.client);
        const mapped = resendSendOf(context.body, { now: new Date(), isAddress: sendSchemaChecks.isAddress });
        const caller = sendCallerOf(context);
        if (mapped.kind === 'template') {
          assertNoErrors(sendSchemaChecks.checkTemplateItem({ email_key: mapped.emailKey, ...mapped.send }));
          const accepted = await sends.template(caller, projectId, mapped.emailKey, mapped.send);
          return { status: 200, body: { id: accepted.message_id } };
        }
        assertNoErrors(sendSchemaChecks.checkContentItem(mapped.send));
        const accepted = await sends.content(caller, projectId, mapped.send);
        return { status: 200, body: { id: accepted.message_id } };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/emails/batch',
      tenant: { credentials: true },
      operationId: 'resendSendEmailBatch',
      summary:
        'Send up to 100 emails (no attachments). x-batch-validation strict (the default): one bad email refuses them all; permissive: the good ones go, the bad ones are listed in errors (Resend: POST /emails/batch)',
      tag: 'Resend',
      scope: 'sdk',
      testKeysMayCall: true,
      body: ResendBatchRequest,
      responses: {
        200: { description: 'The emails sent, in order (and in permissive mode, the ones refused)', schema: ResendBatchResponse },
        ...ERRORS,
      },
      handle: async (context) => {
        const projectId = credentialsProject(context.client);
        const mode = batchValidationOf(context.header('x-batch-validation'));
        const mapping = { now: new Date(), isAddress: sendSchemaChecks.isAddress };
        const prepared = context.body.map((raw) => prepareEmail(raw, mapping));
        const firstRefused = prepared.findIndex((p) => 'refused' in p);
        if (mode === 'strict' && firstRefused >= 0) {
          const { refused } = prepared[firstRefused] as Extract<PreparedEmail, { refused: unknown }>;
          throw new ResendRefusal(refused.name, `The email at index ${firstRefused}: ${refused.message}`, refused.statusCode);
        }
        const ready = prepared.flatMap((p, index) => ('item' in p ? [{ index, item: p.item }] : []));
        const results =
          ready.length > 0
            ? await sends.batch(
                sendCallerOf(context),
                projectId,
                ready.map((r) => r.item),
                { allOrNothing: mode === 'strict' },
              )
            : [];
        // Strict: a refusal only the core could make (a send rule, the catalog) refuses the batch too, and nothing was queued.
        const coreRefusal = results.find((r) => r.status === 'rejected' && !r.error.type.endsWith('/batch-not-sent'));
        if (mode === 'strict' && coreRefusal?.status === 'rejected') {
          const { status, body } = resendErrorOf(coreRefusal.error);
          throw new ResendRefusal(
            body.name,
            `The email at index ${ready[coreRefusal.index]!.index}: ${rejectionMessage(coreRefusal)}`,
            status,
          );
        }
        const data: Array<{ id: string }> = [];
        const errors = prepared.flatMap((p, index) => ('refused' in p ? [{ index, message: p.refused.message }] : []));
        for (const result of results) {
          if (result.status === 'accepted') data.push({ id: result.message_id });
          else errors.push({ index: ready[result.index]!.index, message: rejectionMessage(result) });
        }
        errors.sort((a, b) => a.index - b.index);
        return { status: 200, body: mode === 'permissive' ? { data, errors } : { data } };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/emails/:emailId',
      tenant: { credentials: true, param: 'emailId' },
      operationId: 'resendGetEmail',
      summary: 'Read an email: its recipients, bodies once rendered, schedule and last event (Resend: GET /emails/{id})',
      tag: 'Resend',
      // As Resend's "sending access" keys read nothing: an sdk key sends, a full key reads.
      scope: 'full',
      testKeysMayCall: true,
      params: ResendEmailParams,
      responses: { 200: { description: 'The email', schema: ResendEmail }, ...ERRORS },
      handle: async ({ params, client }) => {
        const projectId = credentialsProject(client);
        if (!isMessageId(params.emailId)) throw new NotFoundError('Email not found.');
        const reader = readerOf(client);
        const [message, content] = await Promise.all([
          reads.read(reader, projectId, params.emailId),
          reads.content(reader, projectId, params.emailId),
        ]);
        if (!message) throw new NotFoundError('Email not found.');
        return { status: 200, body: resendEmailOf(message, content) };
      },
    }),
    defineRoute({
      method: 'patch',
      path: '/emails/:emailId',
      tenant: { credentials: true, param: 'emailId' },
      operationId: 'resendUpdateEmail',
      summary: 'Move a scheduled email to another time, up to 30 days ahead (Resend: PATCH /emails/{id})',
      tag: 'Resend',
      scope: 'sdk',
      params: ResendEmailParams,
      body: ResendUpdateRequest,
      responses: { 200: { description: 'Moved', schema: ResendEmailRef }, ...ERRORS },
      handle: async ({ params, body, client }) => {
        const projectId = credentialsProject(client);
        if (body.id !== undefined && body.id !== params.emailId)
          throw new ResendRefusal('validation_error', 'The body names another email than the path.', 400);
        const now = new Date();
        const sendAt = scheduledAtOf(body.scheduled_at, now);
        refuseBadSendAt(sendAt, now);
        await whenRecorded(readerOf(client), projectId, params.emailId);
        await reschedule(projectId, params.emailId, sendAt);
        return { status: 200, body: { object: 'email' as const, id: params.emailId } };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/emails/:emailId/cancel',
      tenant: { credentials: true, param: 'emailId' },
      operationId: 'resendCancelEmail',
      summary: 'Cancel a scheduled email before its time: it is never sent (Resend: POST /emails/{id}/cancel)',
      tag: 'Resend',
      scope: 'sdk',
      params: ResendEmailParams,
      responses: { 200: { description: 'Canceled (cancelling it again answers the same)', schema: ResendEmailRef }, ...ERRORS },
      handle: async ({ params, client }) => {
        const projectId = credentialsProject(client);
        await whenRecorded(readerOf(client), projectId, params.emailId);
        await reads.cancel(projectId, params.emailId);
        return { status: 200, body: { object: 'email' as const, id: params.emailId } };
      },
    }),
  ];

  return {
    name: 'resend',
    title: 'Postbus: the Resend-compatible email API',
    routes,
    sends: [
      { path: /^\/emails\/?$/i, kind: 'send', messagesOf: () => 1 },
      { path: /^\/emails\/batch\/?$/i, kind: 'batch', messagesOf: (body) => (Array.isArray(body) ? body.length : 0) },
    ],
    answerError: answerResendError,
  };
}
