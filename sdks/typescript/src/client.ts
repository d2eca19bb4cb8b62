import { attachmentBody, type AttachmentBody, type AttachmentInput } from './attachments.js';
import { HttpClient, segment, type PostbusOptions, type RequestOptions } from './http.js';
import type {
  AcceptedResponse,
  CreateLayoutRequest,
  CreateSuppressionRequest,
  CreateTemplateRequest,
  CreateUserRequest,
  EraseRequest,
  EraseResponse,
  Layout,
  LayoutVersionList,
  Message,
  MessageList,
  MessageListQuery,
  PaymentList,
  PaymentListQuery,
  PreviewDraftRequest,
  PreviewTemplateRequest,
  RecordPaymentRequest,
  RenderedEmail,
  SaveLayoutRequest,
  SaveTemplateRequest,
  SendBatchItem,
  SendBatchResponse,
  SendContentMessage,
  SendContentRequest,
  SendContentResponse,
  SendEmailData,
  SendEmailOptions,
  SendEmailRequest,
  SendEmailResponse,
  SendEmailUser,
  SuppressionList,
  SuppressionListQuery,
  Template,
  TemplateValidation,
  TemplateVersionList,
  UnsubscribeRequest,
  UserFields,
  UserProfile,
  UserRef,
  ValidateTemplateRequest,
} from './types.js';

const project = (projectId: string) => `/v1/projects/${segment(projectId)}`;

/** A message's attachments in base64 and its send_at as a string, as the API takes them; the rest as given. */
function onTheWire<M extends { attachments?: AttachmentInput[] | undefined; send_at?: string | Date | undefined }>(
  message: M,
): Omit<M, 'attachments' | 'send_at'> & { attachments?: AttachmentBody[]; send_at?: string } {
  const { attachments, send_at, ...rest } = message;
  return {
    ...rest,
    ...(attachments === undefined ? {} : { attachments: attachments.map(attachmentBody) }),
    ...(send_at === undefined ? {} : { send_at: send_at instanceof Date ? send_at.toISOString() : send_at }),
  };
}

/** Emails: trigger a transactional email for one user, or send one with its own content. */
export class Emails {
  constructor(private readonly http: HttpClient) {}

  /**
   * POST /v1/projects/{projectId}/emails/{emailKey}/send — `emailKey` is the email's id or its key
   * (e.g. `welcome`). `options`: the template's language variant to send (`language`, a BCP 47 tag;
   * absent: the user's language), the message's own reply_to, cc, bcc (at most 50 addresses with the
   * recipient), headers, tags, metadata, attachments
   * (bytes or base64; see `attachmentFromFile`) and send_at (a Date or RFC 3339 string: the message
   * is scheduled, and can be cancelled with `messages.cancel` until then), and the call's
   * idempotencyKey, maxRetries, timeoutMs and signal.
   */
  send(
    projectId: string,
    emailKey: string,
    user: SendEmailUser,
    data?: SendEmailData,
    options: SendEmailOptions & RequestOptions = {},
  ): Promise<SendEmailResponse> {
    const { language, reply_to, cc, bcc, headers, tags, metadata, attachments, send_at, ...call } = options;
    const message = Object.fromEntries(
      Object.entries({
        language,
        reply_to,
        cc,
        bcc,
        headers,
        tags,
        metadata,
        attachments: attachments?.map(attachmentBody),
        send_at: send_at instanceof Date ? send_at.toISOString() : send_at,
      }).filter(([, v]) => v !== undefined),
    );
    const body: SendEmailRequest = { user, ...(data === undefined ? {} : { data }), ...message };
    return this.http.request({ method: 'POST', path: `${project(projectId)}/emails/${segment(emailKey)}/send`, body, options: call });
  }

  /**
   * POST /v1/projects/{projectId}/emails/send — an email with its own content, no stored template:
   * `{ to, subject, html?, text?, from?, user?, cc?, bcc?, reply_to?, headers?, tags?, metadata?,
   * attachments?, send_at?, track_opens?, track_clicks? }` (see `SendContentMessage`). The first `to`
   * is the recipient; the others are copies shown in the To header. The HTML and text are sent as
   * they are. `options`: the call's idempotencyKey, maxRetries, timeoutMs and signal.
   */
  sendContent(projectId: string, message: SendContentMessage, options?: RequestOptions): Promise<SendContentResponse> {
    const body: SendContentRequest = onTheWire(message);
    return this.http.request({ method: 'POST', path: `${project(projectId)}/emails/send`, body, options });
  }

  /**
   * POST /v1/projects/{projectId}/emails/batch — up to 500 sends: template sends naming their email
   * by `email_key`, and content sends (`{ to, subject, html?, text?, … }`, without `email_key`).
   * Each message is accepted or rejected on its own: read `data[i].status` (a rejected one has the
   * problem in `error`). One idempotency key covers the whole batch.
   */
  sendBatch(projectId: string, messages: SendBatchItem[], options?: RequestOptions): Promise<SendBatchResponse> {
    const body = { messages: messages.map((m) => onTheWire<SendBatchItem>(m)) };
    return this.http.request({ method: 'POST', path: `${project(projectId)}/emails/batch`, body, options });
  }
}

/** Users: create, update, unsubscribe, erase, read. */
export class Users {
  constructor(private readonly http: HttpClient) {}

  /** POST /v1/projects/{projectId}/users */
  create(projectId: string, user: CreateUserRequest, options?: RequestOptions): Promise<AcceptedResponse> {
    return this.http.request({ method: 'POST', path: `${project(projectId)}/users`, body: user, options });
  }

  /** PATCH /v1/projects/{projectId}/users/by-email with `{ email, fields }` */
  updateByEmail(projectId: string, email: string, fields: UserFields, options?: RequestOptions): Promise<AcceptedResponse> {
    return this.http.request({ method: 'PATCH', path: `${project(projectId)}/users/by-email`, body: { email, fields }, options });
  }

  /** PATCH /v1/projects/{projectId}/users/{userId} with `{ fields }` */
  updateByUserId(projectId: string, userId: string, fields: UserFields, options?: RequestOptions): Promise<AcceptedResponse> {
    return this.http.request({ method: 'PATCH', path: `${project(projectId)}/users/${segment(userId)}`, body: { fields }, options });
  }

  /** POST /v1/projects/{projectId}/users/unsubscribe */
  unsubscribe(projectId: string, user: UserRef, reason?: string, options?: RequestOptions): Promise<AcceptedResponse> {
    const body: UnsubscribeRequest = reason === undefined ? refOf(user) : { ...refOf(user), reason };
    return this.http.request({ method: 'POST', path: `${project(projectId)}/users/unsubscribe`, body, options });
  }

  /** POST /v1/projects/{projectId}/users/erase — the user gets no email from now on and is erased at `erase_at`. */
  erase(projectId: string, user: UserRef, options?: RequestOptions): Promise<EraseResponse> {
    const body: EraseRequest = refOf(user);
    return this.http.request({ method: 'POST', path: `${project(projectId)}/users/erase`, body, options });
  }

  /** GET /v1/projects/{projectId}/users?email=… or GET /v1/projects/{projectId}/users/{userId} (needs a `full` key). */
  get(projectId: string, user: UserRef, options?: RequestOptions): Promise<UserProfile> {
    const ref = refOf(user);
    return 'email' in ref
      ? this.http.request({ method: 'GET', path: `${project(projectId)}/users`, query: { email: ref.email }, options })
      : this.http.request({ method: 'GET', path: `${project(projectId)}/users/${segment(ref.user_id)}`, options });
  }
}

/** Payments: record them for revenue analytics, list a user's. */
export class Payments {
  constructor(private readonly http: HttpClient) {}

  /** POST /v1/projects/{projectId}/payments — `amount` in minor units, `payment_id` your own unique id. */
  record(projectId: string, payment: RecordPaymentRequest, options?: RequestOptions): Promise<AcceptedResponse> {
    return this.http.request({ method: 'POST', path: `${project(projectId)}/payments`, body: payment, options });
  }

  /** GET /v1/projects/{projectId}/payments?email=|user_id=&limit=&cursor= (needs a `full` key). */
  list(projectId: string, query: PaymentListQuery, options?: RequestOptions): Promise<PaymentList> {
    return this.http.request({ method: 'GET', path: `${project(projectId)}/payments`, query, options });
  }
}

/**
 * Messages: the log of triggered emails with their status and timeline (needs a `full` key, or a
 * `test` key, which reads only its test messages; `test: true` lists test messages with a full key).
 */
export class Messages {
  constructor(private readonly http: HttpClient) {}

  /** GET /v1/projects/{projectId}/messages?email=&user_id=&status=&email_key=&tag=&from=&to=&test=&limit=&cursor= */
  list(projectId: string, filters: MessageListQuery = {}, options?: RequestOptions): Promise<MessageList> {
    return this.http.request({ method: 'GET', path: `${project(projectId)}/messages`, query: filters, options });
  }

  /** GET /v1/projects/{projectId}/messages/{messageId} */
  get(projectId: string, messageId: string, options?: RequestOptions): Promise<Message> {
    return this.http.request({ method: 'GET', path: `${project(projectId)}/messages/${segment(messageId)}`, options });
  }

  /**
   * POST /v1/projects/{projectId}/messages/{messageId}/cancel — a scheduled message (sent with
   * send_at) becomes `canceled` and is never sent; a ConflictError (409) once it is sent or being sent.
   * An `sdk` key may cancel too.
   */
  cancel(projectId: string, messageId: string, options?: RequestOptions): Promise<Message> {
    return this.http.request({ method: 'POST', path: `${project(projectId)}/messages/${segment(messageId)}/cancel`, options });
  }
}

/**
 * Suppressions: the addresses of a project that get no mail, and why (needs a `full` key). A send
 * to a suppressed address is accepted and becomes a message of status `suppressed`.
 */
export class Suppressions {
  constructor(private readonly http: HttpClient) {}

  /** GET /v1/projects/{projectId}/suppressions?email=&reason=&limit=&cursor= — newest first; pass `next_cursor` back as `cursor`. */
  list(projectId: string, filters: SuppressionListQuery = {}, options?: RequestOptions): Promise<SuppressionList> {
    return this.http.request({ method: 'GET', path: `${project(projectId)}/suppressions`, query: filters, options });
  }

  /** POST /v1/projects/{projectId}/suppressions with `{ email, reason: 'manual' }` — later sends to it are suppressed. */
  add(projectId: string, email: string, options?: RequestOptions): Promise<AcceptedResponse> {
    const body: CreateSuppressionRequest = { email, reason: 'manual' };
    return this.http.request({ method: 'POST', path: `${project(projectId)}/suppressions`, body, options });
  }

  /**
   * DELETE /v1/projects/{projectId}/suppressions/{email} — a later send mails the address again;
   * lifting an unsubscribe subscribes the user again (you assert the recipient consented).
   * NotFoundError when it is not suppressed; ConflictError (`/problems/suppression-is-a-complaint`)
   * when a complaint is among its reasons, which stays.
   */
  remove(projectId: string, email: string, options?: RequestOptions): Promise<AcceptedResponse> {
    return this.http.request({ method: 'DELETE', path: `${project(projectId)}/suppressions/${segment(email)}`, options });
  }
}

/** The version list of a template or a layout. */
type VersionList = TemplateVersionList | LayoutVersionList;

/**
 * What templates and layouts share (needs a `full` key): every save appends a numbered version,
 * published at once unless it is a draft; sends use the published version, and any version can be
 * published again (a rollback).
 */
abstract class VersionedResource<Read, Create, Save> {
  constructor(
    protected readonly http: HttpClient,
    private readonly collection: 'templates' | 'layouts',
  ) {}

  protected path(projectId: string, id?: string): string {
    return `${project(projectId)}/${this.collection}${id === undefined ? '' : `/${segment(id)}`}`;
  }

  /** POST /v1/projects/{projectId}/{templates|layouts} — version 1, published. */
  create(projectId: string, body: Create, options?: RequestOptions): Promise<Read> {
    return this.http.request({ method: 'POST', path: this.path(projectId), body, options });
  }

  /** GET /v1/projects/{projectId}/{templates|layouts} — each one's newest version, oldest first. */
  list(projectId: string, options?: RequestOptions): Promise<{ data: Read[] }> {
    return this.http.request({ method: 'GET', path: this.path(projectId), options });
  }

  /** GET …/{id}?version= — the newest version (a draft when one is ahead of the published one), or `version`. */
  get(projectId: string, id: string, version?: number, options?: RequestOptions): Promise<Read> {
    return this.http.request({ method: 'GET', path: this.path(projectId, id), query: { version }, options });
  }

  /**
   * PUT …/{id} — saves a new version: published at once, or with `draft: true` kept unpublished
   * (sends keep the published one until `publish`). A retry after a lost answer may save the
   * same content once more, as one more version.
   */
  save(projectId: string, id: string, body: Save, options?: RequestOptions): Promise<Read> {
    return this.http.request({ method: 'PUT', path: this.path(projectId, id), body, options });
  }

  /** GET …/{id}/versions — newest first (at most 500): when each was saved, by whom, and which is published. */
  versions(projectId: string, id: string, options?: RequestOptions): Promise<VersionList> {
    return this.http.request({ method: 'GET', path: `${this.path(projectId, id)}/versions`, options });
  }

  /** POST …/{id}/versions/{version}/publish — a draft goes live, or an older version comes back (a rollback). */
  publish(projectId: string, id: string, version: number, options?: RequestOptions): Promise<Read> {
    return this.http.request({ method: 'POST', path: `${this.path(projectId, id)}/versions/${version}/publish`, options });
  }

  /** DELETE …/{id} — with all its versions. */
  delete(projectId: string, id: string, options?: RequestOptions): Promise<void> {
    return this.http.request({ method: 'DELETE', path: this.path(projectId, id), options });
  }
}

/**
 * Templates (needs a `full` key): Handlebars (or MJML) subject, HTML and text, language variants,
 * a layout around the body, versions published one at a time.
 */
export class Templates extends VersionedResource<Template, CreateTemplateRequest, SaveTemplateRequest> {
  constructor(http: HttpClient) {
    super(http, 'templates');
  }

  /**
   * POST /v1/projects/{projectId}/templates/{templateId}/preview — renders a version (the newest by
   * default, or `version`) with `user` and `data`, in the variant a send in `language` would use.
   */
  preview(projectId: string, templateId: string, request: PreviewTemplateRequest = {}, options?: RequestOptions): Promise<RenderedEmail> {
    return this.http.request({ method: 'POST', path: `${this.path(projectId, templateId)}/preview`, body: request, options });
  }

  /** POST /v1/projects/{projectId}/template-preview — renders an unsaved template as a send would. Nothing is saved. */
  previewDraft(projectId: string, draft: PreviewDraftRequest, options?: RequestOptions): Promise<RenderedEmail> {
    return this.http.request({ method: 'POST', path: `${project(projectId)}/template-preview`, body: draft, options });
  }

  /**
   * POST /v1/projects/{projectId}/templates/validate — checks an unsaved template (at least one of
   * subject, html and text; its format, layout_id and variants): its syntax and render errors by
   * field, line and column, its render with `user` and `data` in `language`, and the `user.*` and
   * `data.*` paths it reads. Nothing is saved.
   */
  validate(projectId: string, template: ValidateTemplateRequest, options?: RequestOptions): Promise<TemplateValidation> {
    return this.http.request({ method: 'POST', path: `${this.path(projectId)}/validate`, body: template, options });
  }
}

/**
 * Layouts (needs a `full` key): the html (and text) around templates' bodies, at `{{{content}}}`.
 * Publishing a version changes every template that names the layout, from its next send; `delete`
 * is a ConflictError while a template's published version names it.
 */
export class Layouts extends VersionedResource<Layout, CreateLayoutRequest, SaveLayoutRequest> {
  constructor(http: HttpClient) {
    super(http, 'layouts');
  }
}

function refOf(user: UserRef): { email: string } | { user_id: string } {
  if (typeof user.email === 'string') return { email: user.email };
  if (typeof user.user_id === 'string') return { user_id: user.user_id };
  throw new TypeError('Name the user by email or by user_id');
}

/** The Postbus API client. */
export class Postbus {
  readonly emails: Emails;
  readonly users: Users;
  readonly payments: Payments;
  readonly messages: Messages;
  readonly suppressions: Suppressions;
  readonly templates: Templates;
  readonly layouts: Layouts;

  constructor(options: PostbusOptions) {
    const http = new HttpClient(options);
    this.emails = new Emails(http);
    this.users = new Users(http);
    this.payments = new Payments(http);
    this.messages = new Messages(http);
    this.suppressions = new Suppressions(http);
    this.templates = new Templates(http);
    this.layouts = new Layouts(http);
  }
}
