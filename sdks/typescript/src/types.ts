import type { AttachmentInput } from './attachments.js';
import type { operations } from './generated/openapi.js';

/** The JSON body an operation takes, as the gateway's OpenAPI document states it. */
export type RequestBody<Op extends keyof operations> = operations[Op] extends {
  requestBody: { content: { 'application/json': infer Body } };
}
  ? Body
  : never;

/** The JSON body of an operation's success (200). */
export type ResponseBody<Op extends keyof operations> = operations[Op]['responses'] extends {
  200: { content: { 'application/json': infer Body } };
}
  ? Body
  : never;

/** An operation's query parameters. */
export type QueryOf<Op extends keyof operations> = NonNullable<operations[Op]['parameters']['query']>;

/** Names a user: by email (always the key within a project) or by your own user_id. */
export type UserRef = { email: string; user_id?: never } | { user_id: string; email?: never };

export type SendEmailRequest = RequestBody<'sendEmail'>;
/** The recipient: email, optional user_id, standard attributes and custom fields. */
export type SendEmailUser = SendEmailRequest['user'];
/** Template variables. */
export type SendEmailData = NonNullable<SendEmailRequest['data']>;
/**
 * What one send may carry beyond its recipient and data: reply_to, cc and bcc (at most 20 together),
 * custom headers, tags, metadata, attachments, and send_at (a Date or an RFC 3339 string, from now up to 30 days ahead) to schedule it.
 */
export type SendEmailOptions = Pick<SendEmailRequest, 'reply_to' | 'cc' | 'bcc' | 'headers' | 'tags' | 'metadata'> & {
  attachments?: AttachmentInput[];
  send_at?: string | Date;
};
export type SendBatchRequest = RequestBody<'sendEmailBatch'>;
/** One message of a batch: `{ email_key, user, data?, reply_to?, cc?, bcc?, headers?, tags?, metadata?, attachments?, send_at? }`. */
export type SendBatchItem = Omit<SendEmailRequest, 'attachments'> & { email_key: string; attachments?: AttachmentInput[] };
/** `{ request_id, data: [{ index, status: 'accepted', message_id } | { index, status: 'rejected', error }] }`, in the request's order. */
export type SendBatchResponse = ResponseBody<'sendEmailBatch'>;
/** `{ status: 'accepted', request_id, message_id, send_at? }` (send_at: a scheduled send's time) */
export type SendEmailResponse = ResponseBody<'sendEmail'>;

export type CreateUserRequest = RequestBody<'createUser'>;
/** Standard attribute names update the attributes, any other key a custom field; `null` removes one. */
export type UserFields = NonNullable<RequestBody<'updateUserByEmail'>['fields']>;
/** `{ status: 'accepted', request_id }`: the write is queued durably and applied shortly after. */
export type AcceptedResponse = ResponseBody<'createUser'>;
export type UnsubscribeRequest = RequestBody<'unsubscribeUser'>;
export type EraseRequest = RequestBody<'eraseUser'>;
/** `{ status: 'accepted', request_id, erasure_id, erase_at }` */
export type EraseResponse = ResponseBody<'eraseUser'>;
export type UserProfile = ResponseBody<'getUserByEmail'>;

export type RecordPaymentRequest = RequestBody<'createPayment'>;
export type PaymentListQuery = QueryOf<'listPayments'>;
export type PaymentList = ResponseBody<'listPayments'>;

export type MessageListQuery = QueryOf<'listMessages'>;
export type MessageList = ResponseBody<'listMessages'>;
export type Message = ResponseBody<'getMessage'>;

export type SuppressionListQuery = QueryOf<'listSuppressions'>;
/** `{ data, next_cursor }`: one page of the project's suppressions, newest first. */
export type SuppressionList = ResponseBody<'listSuppressions'>;
/** An address that gets no mail: `email`, `reason`, `created_at`, `message_id` (the bounce's or complaint's message, or null). */
export type Suppression = SuppressionList['data'][number];
/** `hard_bounce`, `soft_bounce_limit`, `complaint`, `unsubscribed` or `manual`. */
export type SuppressionReason = Suppression['reason'];
export type CreateSuppressionRequest = RequestBody<'createSuppression'>;
