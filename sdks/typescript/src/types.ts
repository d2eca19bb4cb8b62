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
 * What one send may carry beyond its recipient and data: the template's `language` variant to send
 * (a BCP 47 tag; absent: the user's language), reply_to, cc and bcc (at most 50 addresses with the
 * recipient), custom headers, tags, metadata, attachments, and send_at (a Date or an RFC 3339 string,
 * from now up to 30 days ahead) to schedule it.
 */
export type SendEmailOptions = Pick<SendEmailRequest, 'language' | 'reply_to' | 'cc' | 'bcc' | 'headers' | 'tags' | 'metadata'> & {
  attachments?: AttachmentInput[];
  send_at?: string | Date;
};
/** `{ status: 'accepted', request_id, message_id, send_at? }` (send_at: a scheduled send's time) */
export type SendEmailResponse = ResponseBody<'sendEmail'>;

/** The body of a content send (POST …/emails/send) as the API takes it: attachments in base64, send_at a string. */
export type SendContentRequest = RequestBody<'sendContentEmail'>;
/**
 * An email with its own content, no stored template: `to` (an address, or a list whose first
 * address is the recipient and whose others are copies shown in the To header), `subject`, and
 * `html` and/or `text`, sent as they are. Optional: `from` (`'Name <address>'` or an address on the
 * project's verified sender domain; by default the project's sender), `user` (registers or updates
 * the recipient as a user, as a template send does; its email must be the recipient's), `cc`,
 * `bcc` (at most 50 addresses across to, cc and bcc), `reply_to`, `headers`, `tags`, `metadata`,
 * `attachments` (bytes or base64; see `attachmentFromFile`), `send_at` (a Date or an RFC 3339
 * string, from now up to 30 days ahead) and `track_opens`/`track_clicks` (by default the project's).
 */
export type SendContentMessage = Omit<SendContentRequest, 'attachments' | 'send_at'> & {
  attachments?: AttachmentInput[];
  send_at?: string | Date;
};
/** `{ status: 'accepted', request_id, message_id, send_at? }` (send_at: a scheduled send's time) */
export type SendContentResponse = ResponseBody<'sendContentEmail'>;

export type SendBatchRequest = RequestBody<'sendEmailBatch'>;
/** A template send in a batch: `{ email_key, user, data?, reply_to?, cc?, bcc?, headers?, tags?, metadata?, attachments?, send_at? }`. */
export type SendTemplateBatchItem = Omit<SendEmailRequest, 'attachments' | 'send_at'> & {
  email_key: string;
  attachments?: AttachmentInput[];
  send_at?: string | Date;
};
/** A content send in a batch: a `SendContentMessage`, without an `email_key`. */
export type SendContentBatchItem = SendContentMessage & { email_key?: never };
/** One message of a batch: a template send (with `email_key`) or a content send (with `to` and `subject`, without `email_key`). */
export type SendBatchItem = SendTemplateBatchItem | SendContentBatchItem;
/** `{ request_id, data: [{ index, status: 'accepted', message_id } | { index, status: 'rejected', error }] }`, in the request's order. */
export type SendBatchResponse = ResponseBody<'sendEmailBatch'>;

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
/**
 * One message: its status and timeline, `source` (`api` or `smtp`), `template` (`{ id, version }`,
 * null for a content send), `language` (the template's variant it was rendered in; null: the
 * default) and `email_key` (null for a content send).
 */
export type Message = ResponseBody<'getMessage'>;
/** How a message's send came: `api` (a template or a content send over HTTP) or `smtp` (SMTP submission). */
export type MessageSource = Message['source'];

export type SuppressionListQuery = QueryOf<'listSuppressions'>;
/** `{ data, next_cursor }`: one page of the project's suppressions, newest first. */
export type SuppressionList = ResponseBody<'listSuppressions'>;
/** An address that gets no mail: `email`, `reason`, `created_at`, `message_id` (the bounce's or complaint's message, or null). */
export type Suppression = SuppressionList['data'][number];
/** `hard_bounce`, `soft_bounce_limit`, `complaint`, `unsubscribed` or `manual`. */
export type SuppressionReason = Suppression['reason'];
export type CreateSuppressionRequest = RequestBody<'createSuppression'>;

/**
 * A template as read: the version shown (`version`), the newest (`latest_version`: a draft when it
 * is ahead of `published_version`), the one sends use (`published_version`), its `format`, default
 * `subject`, `html` and `text`, `layout_id`, language `variants`, and who saved this version (`saved_by`).
 */
export type Template = ResponseBody<'getTemplate'>;
/** `{ data }`: the project's templates, each its newest version, oldest template first. */
export type TemplateList = ResponseBody<'listTemplates'>;
/** `handlebars` (the html is HTML) or `mjml` (the html is an MJML document, compiled to HTML). */
export type TemplateFormat = Template['format'];
/** `{ name, subject, html, text?, format?, layout_id?, variants? }`: version 1, published. */
export type CreateTemplateRequest = RequestBody<'createTemplate'>;
/** A new version: as a template is created, and `draft: true` to save it without publishing it. */
export type SaveTemplateRequest = RequestBody<'saveTemplateVersion'>;
/** One language's `{ language, subject, html, text?, layout_id? }`: sent to users of that language (or of a tag whose primary subtag it is). */
export type TemplateVariant = NonNullable<CreateTemplateRequest['variants']>[number];
/** `{ data }`: newest first, each `{ version, created_at, saved_by, published }`. */
export type TemplateVersionList = ResponseBody<'listTemplateVersions'>;
/** Who saved a version: `{ key_id, via }` (`via`: `key`, or `session` through the admin panel); null for versions saved before it was kept. */
export type SavedBy = Template['saved_by'];
/** `{ user?, data?, language?, version? }`: what a saved template is rendered with. */
export type PreviewTemplateRequest = RequestBody<'previewTemplate'>;
/** An unsaved template (`subject`, `html`, `text?`, `format?`, `layout_id?`, `variants?`) and `{ user?, data?, language? }`. */
export type PreviewDraftRequest = RequestBody<'previewDraftTemplate'>;
/** `{ subject, html, text }`: a template as a send would render it. */
export type RenderedEmail = ResponseBody<'previewTemplate'>;

/**
 * An unsaved template to check: at least one of `subject`, `html` and `text`, its `format`,
 * `layout_id` and `variants`, and the `user`, `data` and `language` to render it with.
 */
export type ValidateTemplateRequest = RequestBody<'validateTemplate'>;
/**
 * `{ valid, errors: [{ field, line, column, message }], rendered, variables }`: each error's field
 * (`subject`, `html`, `text`, `variants/N/html`, `layout_id`, …), line and column from 1 within it
 * (null when unknown); the render in the language given, with the user and data given (null unless
 * valid); every `user.*` and `data.*` path the template (and its layouts) reads.
 */
export type TemplateValidation = ResponseBody<'validateTemplate'>;

/** A layout as read: its `html` and `text` around the body (`{{{content}}}`), and its versions as a template's. */
export type Layout = ResponseBody<'getLayout'>;
/** `{ data }`: the project's layouts, each its newest version, oldest layout first. */
export type LayoutList = ResponseBody<'listLayouts'>;
/** `{ name, html, text? }`: html (and text, when given) hold `{{{content}}}` exactly once. Version 1, published. */
export type CreateLayoutRequest = RequestBody<'createLayout'>;
/** A new version: as a layout is created, and `draft: true` to save it without publishing it. */
export type SaveLayoutRequest = RequestBody<'saveLayoutVersion'>;
/** `{ data }`: newest first, each `{ version, created_at, saved_by, published }`. */
export type LayoutVersionList = ResponseBody<'listLayoutVersions'>;
