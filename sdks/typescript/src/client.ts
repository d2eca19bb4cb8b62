import { attachmentBody, type AttachmentBody, type AttachmentInput } from './attachments.js';
import { HttpClient, segment, type PostbusOptions, type RequestOptions } from './http.js';
import type {
  AcceptedResponse,
  CreateSuppressionRequest,
  CreateUserRequest,
  EraseRequest,
  EraseResponse,
  Message,
  MessageList,
  MessageListQuery,
  PaymentList,
  PaymentListQuery,
  RecordPaymentRequest,
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
  TemplateValidation,
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
   * (e.g. `welcome`). `options`: the message's own reply_to, cc, bcc (at most 50 addresses with the
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
    const { reply_to, cc, bcc, headers, tags, metadata, attachments, send_at, ...call } = options;
    const message = Object.fromEntries(
      Object.entries({
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

/** Templates: Handlebars subject, HTML and text (needs a `full` key). */
export class Templates {
  constructor(private readonly http: HttpClient) {}

  /**
   * POST /v1/projects/{projectId}/templates/validate — checks an unsaved template (at least one of
   * subject, html and text): its syntax and render errors by field, line and column, its render
   * with `user` and `data`, and the `user.*` and `data.*` paths it reads. Nothing is saved.
   */
  validate(projectId: string, template: ValidateTemplateRequest, options?: RequestOptions): Promise<TemplateValidation> {
    return this.http.request({ method: 'POST', path: `${project(projectId)}/templates/validate`, body: template, options });
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

  constructor(options: PostbusOptions) {
    const http = new HttpClient(options);
    this.emails = new Emails(http);
    this.users = new Users(http);
    this.payments = new Payments(http);
    this.messages = new Messages(http);
    this.suppressions = new Suppressions(http);
    this.templates = new Templates(http);
  }
}
