import { Type, type Static } from '@sinclair/typebox';
import {
  ATTACHMENT_LIMITS,
  COPY_KINDS,
  COPY_REPORT_EVENTS,
  ERASED_COPY_ADDRESS,
  ENGAGEMENT_EVENTS,
  MAX_STATS_DAYS,
  MESSAGE_OPTION_LIMITS,
  MESSAGE_STATUSES,
  MESSAGE_READ_STATUSES,
  PAGE_LIMIT,
  RESERVED_HEADERS,
  SEND_AT_LIMITS,
  SUPPRESSION_REASONS,
  TIMELINE_EVENTS,
} from './values';
import { Day } from './payments';
import {
  Email,
  DOCUMENT_LIMITS,
  FIELD_NAME_PATTERN,
  FreeFormObject,
  Nullable,
  ObjectIdString,
  pageOf,
  PageParams,
  StandardAttributes,
  StringEnum,
  Timestamp,
  UserFields,
  UserId,
} from './common';

/** The public HTTP contract's request and response bodies (docs/architecture.md#the-public-api). */

/** Who mail comes from, as a project sets it and a transactional email may override it. */
const SenderIdentity = {
  from_email: Nullable(Type.String()),
  from_name: Nullable(Type.String()),
  reply_to: Nullable(Type.String()),
};

export const Accepted = Type.Object({
  status: Type.Literal('accepted'),
  request_id: Type.String(),
});
export type Accepted = Static<typeof Accepted>;

export const CreateSenderDomainRequest = Type.Object(
  {
    domain: Type.String({
      format: 'hostname',
      minLength: 3,
      // 253 less `<selector>._domainkey.` (20): the DKIM record's name must itself be a valid DNS name.
      maxLength: 233,
      // A name with at least one dot, stated as a pattern so that generators (schemathesis) find such names.
      pattern: '^([A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?\\.)+[A-Za-z]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?$',
      description: 'the domain mail is sent from, e.g. mail.example.com',
    }),
  },
  { additionalProperties: false },
);
export type CreateSenderDomainRequest = Static<typeof CreateSenderDomainRequest>;

export const SenderDomainIdParam = Type.Object({ senderDomainId: ObjectIdString });

const RecordPurpose = Type.Union([
  Type.Literal('spf'),
  Type.Literal('dkim'),
  Type.Literal('dmarc'),
  Type.Literal('tracking'),
  Type.Literal('ownership'),
  Type.Literal('return_path_mx'),
  Type.Literal('return_path_spf'),
]);

/** `postbus-verification=<token>` at `_postbus.<domain>`: required when another client added the domain first. */
const OwnershipRecord = Type.Object({
  purpose: Type.Literal('ownership'),
  type: Type.Literal('TXT'),
  name: Type.String(),
  value: Type.String(),
  required: Type.Boolean(),
});

export const SenderDomain = Type.Object({
  id: Type.String(),
  domain: Type.String(),
  status: Type.Union([Type.Literal('pending'), Type.Literal('verified'), Type.Literal('failed')]),
  dkim_selector: Type.String(),
  records: Type.Array(
    Type.Object({
      purpose: RecordPurpose,
      type: Type.Union([Type.Literal('TXT'), Type.Literal('MX')]),
      name: Type.String(),
      value: Type.String({ description: 'an MX value is "<preference> <host>"' }),
      required: Type.Boolean(),
    }),
    {
      description:
        'publish these in DNS, then call verify; the return-path MX and SPF (pb-bounces.<domain>) are not required to send, but without them bounces and complaints go unread',
    },
  ),
  verification: Nullable(
    Type.Object({
      checked_at: Timestamp,
      records: Type.Array(
        Type.Object({
          purpose: RecordPurpose,
          type: Type.Union([Type.Literal('TXT'), Type.Literal('CNAME'), Type.Literal('MX')]),
          name: Type.String(),
          expected: Type.String(),
          found: Type.Array(Type.String()),
          ok: Type.Boolean(),
          required: Type.Boolean(),
          detail: Type.String(),
        }),
      ),
    }),
  ),
  verified_at: Nullable(Timestamp),
  created_at: Timestamp,
});
export type SenderDomain = Static<typeof SenderDomain>;

export const SenderDomainList = Type.Object({ data: Type.Array(SenderDomain) });

export const CreateTrackingDomainRequest = Type.Object(
  { domain: CreateSenderDomainRequest.properties.domain },
  { additionalProperties: false },
);
export type CreateTrackingDomainRequest = Static<typeof CreateTrackingDomainRequest>;

export const TrackingDomainIdParam = Type.Object({ trackingDomainId: ObjectIdString });

export const TrackingDomain = Type.Object({
  id: Type.String(),
  domain: Type.String(),
  status: Type.Union([Type.Literal('pending'), Type.Literal('verified'), Type.Literal('failed')]),
  records: Type.Array(
    Type.Union([
      Type.Object({
        purpose: Type.Literal('tracking'),
        type: Type.Literal('CNAME'),
        name: Type.String(),
        value: Type.String(),
        required: Type.Boolean(),
      }),
      OwnershipRecord,
    ]),
    { description: 'publish the CNAME (and the ownership TXT when required), then call verify' },
  ),
  verification: SenderDomain.properties.verification,
  verified_at: Nullable(Timestamp),
  created_at: Timestamp,
});
export type TrackingDomain = Static<typeof TrackingDomain>;

export const TrackingDomainList = Type.Object({ data: Type.Array(TrackingDomain) });

const TemplateBody = {
  name: Type.String({ minLength: 1, maxLength: 200 }),
  subject: Type.String({ minLength: 1, maxLength: 998, description: 'Handlebars; {{user.…}} and {{data.…}}; not HTML-escaped' }),
  html: Type.String({ minLength: 1, maxLength: 512_000, description: 'Handlebars; values are HTML-escaped' }),
  text: Type.Optional(Nullable(Type.String({ maxLength: 512_000, description: 'Handlebars; absent: derived from the HTML' }))),
};

/**
 * A saved template travels whole on the catalog topic: its parts together stay well under the
 * broker's 1 MB per record, counted as serialised (UTF-8, escapes included).
 */
export const TEMPLATE_LIMITS = { maxDepth: 1, maxBytes: 768 * 1024 } as const;

export const SaveTemplateRequest = Type.Object(TemplateBody, {
  additionalProperties: false,
  'x-document': TEMPLATE_LIMITS,
  description: `subject, html and text together at most ${TEMPLATE_LIMITS.maxBytes / 1024} KB as JSON`,
});
export type SaveTemplateRequest = Static<typeof SaveTemplateRequest>;

export const Template = Type.Object({
  id: Type.String(),
  project_id: Type.String(),
  name: Type.String(),
  version: Type.Integer({ description: 'the version shown' }),
  latest_version: Type.Integer(),
  subject: Type.String(),
  html: Type.String(),
  text: Nullable(Type.String()),
  created_at: Timestamp,
  updated_at: Timestamp,
});
export type Template = Static<typeof Template>;

export const TemplateList = Type.Object({ data: Type.Array(Template) });

/** The most versions GET …/versions answers: newest first, older ones stay readable by number. */
export const MAX_TEMPLATE_VERSIONS_LISTED = 500;

export const TemplateVersionList = Type.Object({
  data: Type.Array(Type.Object({ version: Type.Integer({ minimum: 1 }), created_at: Timestamp }), {
    description: `newest first, at most ${MAX_TEMPLATE_VERSIONS_LISTED}`,
  }),
});
export type TemplateVersionList = Static<typeof TemplateVersionList>;

export const TemplateParams = Type.Object({ projectId: ObjectIdString, templateId: ObjectIdString });

export const TemplateVersionQuery = Type.Object(
  { version: Type.Optional(Type.Integer({ minimum: 1, description: 'an older version; the latest by default' })) },
  { additionalProperties: false },
);

export const PreviewRequest = Type.Object(
  {
    user: Type.Optional(FreeFormObject()),
    data: Type.Optional(FreeFormObject()),
    version: Type.Optional(Type.Integer({ minimum: 1 })),
  },
  { additionalProperties: false },
);
export type PreviewRequest = Static<typeof PreviewRequest>;

/** An unsaved template rendered as it would be sent: the editor's live preview. */
export const DraftPreviewRequest = Type.Object(
  {
    subject: TemplateBody.subject,
    html: TemplateBody.html,
    text: TemplateBody.text,
    user: Type.Optional(FreeFormObject()),
    data: Type.Optional(FreeFormObject()),
  },
  { additionalProperties: false },
);
export type DraftPreviewRequest = Static<typeof DraftPreviewRequest>;

export const RenderedEmail = Type.Object({ subject: Type.String(), html: Type.String(), text: Type.String() });

const EmailKey = Type.String({ pattern: '^[a-z0-9][a-z0-9_-]{0,63}$', description: 'the name the API triggers it by, e.g. welcome' });

const EmailSettings = {
  key: EmailKey,
  name: Type.String({ minLength: 1, maxLength: 200 }),
  template_id: ObjectIdString,
  track_opens: Type.Optional(Type.Boolean({ default: false })),
  track_clicks: Type.Optional(Type.Boolean({ default: false })),
  send_to_unsubscribed: Type.Optional(
    Type.Boolean({ default: false, description: 'for mail a user must get anyway, such as a password reset' }),
  ),
  from_email: Type.Optional(Nullable(Email)),
  from_name: Type.Optional(Nullable(Type.String({ maxLength: 200 }))),
  reply_to: Type.Optional(Nullable(Email)),
};

export const CreateEmailRequest = Type.Object(EmailSettings, { additionalProperties: false });
export type CreateEmailRequest = Static<typeof CreateEmailRequest>;

export const UpdateEmailRequest = Type.Partial(Type.Object(EmailSettings), { additionalProperties: false, minProperties: 1 });
export type UpdateEmailRequest = Static<typeof UpdateEmailRequest>;

export const TransactionalEmail = Type.Object({
  id: Type.String(),
  project_id: Type.String(),
  key: Type.String(),
  name: Type.String(),
  template_id: Type.String(),
  track_opens: Type.Boolean(),
  track_clicks: Type.Boolean(),
  send_to_unsubscribed: Type.Boolean(),
  ...SenderIdentity,
  created_at: Timestamp,
  updated_at: Timestamp,
});
export type TransactionalEmail = Static<typeof TransactionalEmail>;

export const TransactionalEmailList = Type.Object({ data: Type.Array(TransactionalEmail) });

export const EmailParams = Type.Object({ projectId: ObjectIdString, emailKey: Type.String({ minLength: 1, maxLength: 64 }) });

const L = MESSAGE_OPTION_LIMITS;
const Tag = Type.String({
  pattern: `^[A-Za-z0-9_.:-]{1,${L.tagLength}}$`,
  description: `1 to ${L.tagLength} characters of A-Z a-z 0-9 _ . : -`,
});

const A = ATTACHMENT_LIMITS;

/** A file sent with a message; its content is stored once by the mailer, never carried on the bus. */
export const Attachment = Type.Object(
  {
    filename: Type.String({
      minLength: 1,
      maxLength: A.filenameLength,
      pattern: '^[^/\\\\\\r\\n\\u0000]+$',
      description: `the file's name as the recipient sees it: 1 to ${A.filenameLength} characters, no path (/ or \\), no line break`,
      examples: ['invoice-4711.pdf'],
    }),
    content: Type.String({ description: 'the file, base64-encoded (RFC 4648, no line breaks)', examples: ['JVBERi0xLjQK'] }),
    content_type: Type.Optional(
      Type.String({
        maxLength: 127,
        pattern: '^[A-Za-z0-9!#$&^_.+-]+/[A-Za-z0-9!#$&^_.+-]+$',
        description: "its media type; by default the one its name's extension stands for (application/octet-stream for one unknown)",
        examples: ['application/pdf'],
      }),
    ),
    content_id: Type.Optional(
      Type.String({
        pattern: `^[A-Za-z0-9._@+-]{1,${A.contentIdLength}}$`,
        description: 'makes the file an inline part, shown where the HTML refers to cid:<content_id> (e.g. <img src="cid:logo">)',
        examples: ['logo'],
      }),
    ),
  },
  { additionalProperties: false },
);
export type Attachment = Static<typeof Attachment>;

/** What a message's reads say of an attachment: never its content. */
export const AttachmentInfo = Type.Object({
  filename: Type.String(),
  content_type: Type.String(),
  size: Type.Integer({ minimum: 0, description: 'bytes' }),
  content_id: Type.Optional(Type.String({ description: 'set for an inline part' })),
});
export type AttachmentInfo = Static<typeof AttachmentInfo>;

/** What a message read says of an attachment, from what its trigger carried (AttachmentRef, without its hash). */
export const attachmentInfoOf = (a: { filename: string; contentType: string; size: number; contentId?: string }): AttachmentInfo => ({
  filename: a.filename,
  content_type: a.contentType,
  size: a.size,
  ...(a.contentId !== undefined ? { content_id: a.contentId } : {}),
});

/** What one send may carry beyond its recipient and data: stored with the message, shown in its reads and in every webhook about it. */
const MessageOptions = {
  reply_to: Type.Optional(Email),
  cc: Type.Optional(
    Type.Array(Email, {
      maxItems: L.copies,
      description: `addresses the email is copied to, named in its Cc header; cc and bcc together at most ${L.copies}, none twice nor the recipient's. They are not registered as users; a suppressed one is dropped (the message's dropped_copies says so)`,
      examples: [['accounts@example.com']],
    }),
  ),
  bcc: Type.Optional(
    Type.Array(Email, {
      maxItems: L.copies,
      description: `addresses the email is blind-copied to: each gets its own mail, in its own SMTP transaction, and is named in no header; counted with cc (at most ${L.copies} together)`,
      examples: [['archive@example.com']],
    }),
  ),
  headers: Type.Optional(
    Type.Record(Type.String(), Type.String({ maxLength: L.headerValueLength, pattern: '^[^\\r\\n]*$' }), {
      maxProperties: L.headers,
      propertyNames: { pattern: '^[!-9;-~]{1,76}$' },
      description: `custom headers, at most ${L.headers}: RFC 5322 field names, values of at most ${L.headerValueLength} characters without CR or LF; none of those that Postbus, the relays or the receivers set, or that would take replies, bounces or read receipts elsewhere (${RESERVED_HEADERS.join(', ')}; a name ending in * covers every name it starts); In-Reply-To and References are yours to set`,
      examples: [{ 'X-Order-Id': '4711' }],
    }),
  ),
  tags: Type.Optional(
    Type.Array(Tag, {
      maxItems: L.tags,
      uniqueItems: true,
      description: `at most ${L.tags} tags to find the message by (the message log's tag filter)`,
      examples: [['receipt', 'shop:eu']],
    }),
  ),
  metadata: Type.Optional(
    Type.Record(Type.String(), Type.String({ maxLength: L.metadataValueLength }), {
      maxProperties: L.metadata,
      propertyNames: { minLength: 1, maxLength: L.metadataKeyLength },
      description: `at most ${L.metadata} string pairs of the client's own (keys of at most ${L.metadataKeyLength} characters, values of at most ${L.metadataValueLength}), carried in every webhook about the message`,
      examples: [{ order_id: 'ord_4711' }],
    }),
  ),
  attachments: Type.Optional(
    Type.Array(Attachment, {
      maxItems: ATTACHMENT_LIMITS.count,
      description: `at most ${ATTACHMENT_LIMITS.count} files, at most ${ATTACHMENT_LIMITS.totalBytes / 1024 / 1024} MB together (decoded); programs and scripts are refused`,
    }),
  ),
  send_at: Type.Optional(
    Type.String({
      format: 'date-time',
      description: `RFC 3339: send the message then (within 5 s), not now; from now up to ${SEND_AT_LIMITS.maxAheadDays} days ahead. The message is scheduled until then, and can be cancelled (POST …/messages/{messageId}/cancel)`,
      examples: ['2026-12-24T18:00:00Z'],
    }),
  ),
};

const SendUser = Type.Object(
  { email: Email, user_id: Type.Optional(UserId), ...StandardAttributes },
  {
    additionalProperties: Type.Unknown(),
    propertyNames: { pattern: FIELD_NAME_PATTERN },
    maxProperties: 100,
    'x-document': DOCUMENT_LIMITS,
    description: `the recipient: email, optional user_id, standard attributes and custom fields; keys inside a field's value: 1 to 128 characters, no NUL, no '.', not starting with '$'; at most ${DOCUMENT_LIMITS.maxDepth} levels deep and ${DOCUMENT_LIMITS.maxBytes / 1024} KB as JSON`,
  },
);

/** What one send says: its recipient, the template's data and the message's options. */
const SendFields = {
  user: SendUser,
  data: Type.Optional(FreeFormObject({ description: 'variables for the template' })),
  ...MessageOptions,
};

export const SendEmailRequest = Type.Object(SendFields, { additionalProperties: false });
export type SendEmailRequest = Static<typeof SendEmailRequest>;

const AcceptedSendAt = Type.Optional(Type.String({ format: 'date-time', description: 'a scheduled send: when it goes' }));

export const SendAccepted = Type.Object({
  status: Type.Literal('accepted'),
  request_id: Type.String(),
  message_id: Type.String(),
  send_at: AcceptedSendAt,
});

export const Session = Type.Object({
  token: Type.String({ description: 'send as Authorization: Bearer <token>' }),
  token_type: Type.Literal('Bearer'),
  expires_at: Timestamp,
  scope: Type.Union([Type.Literal('full'), Type.Literal('sdk')]),
});
export type Session = Static<typeof Session>;

export const CookieSession = Type.Object({
  token_type: Type.Literal('Cookie', {
    description:
      'the session is in the HttpOnly postbus_session cookie this answer sets (__Host-postbus_session over https); it is never in the body',
  }),
  expires_at: Timestamp,
  scope: Type.Union([Type.Literal('full'), Type.Literal('sdk')]),
});
export type CookieSession = Static<typeof CookieSession>;

/** Who the credentials of a request are: what the admin panel shows and how it knows it is signed in. */
export const AdminSession = Type.Object({
  client_id: Type.String(),
  scope: Type.Union([Type.Literal('full'), Type.Literal('sdk')]),
  via: Type.Union([Type.Literal('key'), Type.Literal('session')], { description: 'an API key, or an admin session (Bearer or cookie)' }),
});
export type AdminSession = Static<typeof AdminSession>;

export const ProblemBody = Type.Object({
  type: Type.String(),
  title: Type.String(),
  status: Type.Integer(),
  detail: Type.Optional(Type.String()),
  errors: Type.Optional(Type.Array(Type.Object({ pointer: Type.String(), message: Type.String() }))),
  request_id: Type.Optional(Type.String()),
});

/** The most messages one batch send may hold. */
export const SEND_BATCH_MAX = 500;

/** One message of a batch send: a send (as POST …/emails/{emailKey}/send takes it) naming its email. */
export const SendBatchItem = Type.Object(
  { email_key: Type.String({ minLength: 1, maxLength: 64, description: "the email's key (e.g. welcome) or id" }), ...SendFields },
  { additionalProperties: false },
);
export type SendBatchItem = Static<typeof SendBatchItem>;

export const SendBatchRequest = Type.Object(
  {
    messages: Type.Array(Type.Record(Type.String(), Type.Unknown()), {
      minItems: 1,
      maxItems: SEND_BATCH_MAX,
      description: `1 to ${SEND_BATCH_MAX} messages, each as SendBatchItem: {email_key, user, data?, reply_to?, cc?, bcc?, headers?, tags?, metadata?, attachments?, send_at?}. Each is checked on its own: a bad one is rejected in the answer, and the others are sent`,
    }),
  },
  { additionalProperties: false },
);
export type SendBatchRequest = Static<typeof SendBatchRequest>;

export const SendBatchResult = Type.Union([
  Type.Object({
    index: Type.Integer({ minimum: 0 }),
    status: Type.Literal('accepted'),
    message_id: Type.String(),
    send_at: AcceptedSendAt,
  }),
  Type.Object({
    index: Type.Integer({ minimum: 0 }),
    status: Type.Literal('rejected'),
    // Why, as a problem; its pointers locate the field in the request body (/messages/<index>/…).
    error: ProblemBody,
  }),
]);
export type SendBatchResult = Static<typeof SendBatchResult>;

export const SendBatchResponse = Type.Object({
  request_id: Type.String(),
  data: Type.Array(SendBatchResult, { description: "one result per message, in the request's order" }),
});
export type SendBatchResponse = Static<typeof SendBatchResponse>;

export const CreateUserRequest = Type.Object(
  { email: Email, user_id: Type.Optional(UserId), fields: Type.Optional(UserFields) },
  { additionalProperties: false },
);
export type CreateUserRequest = Static<typeof CreateUserRequest>;

export const UpdateUserByEmailRequest = Type.Object({ email: Email, fields: UserFields }, { additionalProperties: false });
export type UpdateUserByEmailRequest = Static<typeof UpdateUserByEmailRequest>;

export const UpdateUserByIdRequest = Type.Object({ fields: UserFields }, { additionalProperties: false });
export type UpdateUserByIdRequest = Static<typeof UpdateUserByIdRequest>;

export const UnsubscribeRequest = Type.Object(
  {
    email: Type.Optional(Email),
    user_id: Type.Optional(UserId),
    reason: Type.Optional(Type.String({ maxLength: 500 })),
  },
  { additionalProperties: false, anyOf: [{ required: ['email'] }, { required: ['user_id'] }] },
);
export type UnsubscribeRequest = Static<typeof UnsubscribeRequest>;

export const UserIdParam = Type.Object({ userId: UserId });

export const UserLookupQuery = Type.Object({ email: Email }, { additionalProperties: false });

export const UserProfile = Type.Object({
  id: Type.String(),
  project_id: Type.String(),
  email: Type.String(),
  user_id: Nullable(Type.String()),
  name: Nullable(Type.String()),
  country: Nullable(Type.String()),
  language: Nullable(Type.String()),
  gender: Nullable(Type.String()),
  age: Nullable(Type.Integer()),
  fields: Type.Record(Type.String(), Type.Unknown()),
  subscription: Type.Object({
    status: Type.Union([Type.Literal('subscribed'), Type.Literal('unsubscribed')]),
    unsubscribed_at: Nullable(Timestamp),
    reason: Nullable(Type.String()),
  }),
  erasure: Nullable(
    Type.Object({ id: Type.String(), erase_at: Timestamp }, { description: 'set while the user is queued for erasure: no mail goes out' }),
  ),
  created_at: Timestamp,
  updated_at: Timestamp,
});
export type UserProfile = Static<typeof UserProfile>;

const ProjectSettings = {
  name: Type.String({ minLength: 1, maxLength: 200 }),
  from_email: Type.Optional(Nullable(Email)),
  from_name: Type.Optional(Nullable(Type.String({ maxLength: 200 }))),
  reply_to: Type.Optional(Nullable(Email)),
  sender_domain_id: Type.Optional(Nullable(ObjectIdString)),
  tracking_domain_id: Type.Optional(Nullable(ObjectIdString)),
};

export const CreateProjectRequest = Type.Object(ProjectSettings, { additionalProperties: false });
export type CreateProjectRequest = Static<typeof CreateProjectRequest>;

export const UpdateProjectRequest = Type.Partial(Type.Object(ProjectSettings), { additionalProperties: false, minProperties: 1 });
export type UpdateProjectRequest = Static<typeof UpdateProjectRequest>;

export const ProjectIdParam = Type.Object({ projectId: ObjectIdString });

export const Project = Type.Object({
  id: Type.String(),
  name: Type.String(),
  ...SenderIdentity,
  sender_domain_id: Nullable(Type.String()),
  tracking_domain_id: Nullable(Type.String()),
  created_at: Timestamp,
  updated_at: Timestamp,
});
export type Project = Static<typeof Project>;

export const ProjectList = Type.Object({ data: Type.Array(Project) });

export const ListQuery = Type.Object(
  { limit: Type.Optional(Type.Integer({ minimum: 1, maximum: PAGE_LIMIT.max, default: PAGE_LIMIT.default })) },
  { additionalProperties: false },
);

const MessageStatusSchema = StringEnum(MESSAGE_STATUSES, { description: 'the delivery status' });

export const TimelineEntry = Type.Object({
  sequence: Type.Integer({ minimum: 1 }),
  event: StringEnum(TIMELINE_EVENTS, {
    description: `a delivery status (${MESSAGE_STATUSES.join(', ')}) or an engagement event (${ENGAGEMENT_EVENTS.join(', ')})`,
  }),
  at: Timestamp,
  smtp: Type.Optional(Type.Object({ code: Type.Integer(), response: Type.String() })),
  reason: Type.Optional(Type.String()),
  url: Type.Optional(Type.String()),
  attempt: Type.Optional(Type.Integer()),
  count: Type.Optional(
    Type.Integer({
      minimum: 1,
      description:
        'engagement: how many times it happened; only the first open, the first click of each link and the unsubscribe are entries',
    }),
  ),
});

/** One triggered email: where it stands and everything that happened to it. */
/** A cc or bcc address a message was not sent to. */
export const DroppedCopy = Type.Object({
  email: Type.String(),
  kind: StringEnum(COPY_KINDS),
  reason: Type.String({
    description: 'a suppression reason (e.g. hard_bounce, unsubscribed), or the relay refusing the address at RCPT TO',
  }),
});
export type DroppedCopy = Static<typeof DroppedCopy>;

/** A cc or bcc address the relay took. */
export const DeliveredCopy = Type.Object({ email: Type.String(), kind: StringEnum(COPY_KINDS) });
export type DeliveredCopy = Static<typeof DeliveredCopy>;

/** What a copy's mail system reported after the message was sent (see COPY_REPORT_EVENTS). */
export const CopyReport = Type.Object({
  email: Type.String(),
  kind: StringEnum(COPY_KINDS),
  event: StringEnum(COPY_REPORT_EVENTS, {
    description:
      "bounced: a hard bounce (the address is suppressed, hard_bounce); soft_bounced: a delay or a full mailbox, counted toward the soft-bounce limit as a recipient's is; complained: a spam complaint (the address is suppressed, complaint); unsubscribed: the copy's own unsubscribe link or address (the address is suppressed, unsubscribed; a copy is no user)",
  }),
  at: Timestamp,
  reason: Type.Optional(Type.String({ description: 'what the report said' })),
  count: Type.Optional(Type.Integer({ minimum: 1, description: 'how many such reports came about this copy; the first is at `at`' })),
});
export type CopyReport = Static<typeof CopyReport>;

export const Message = Type.Object({
  id: Type.String({ description: 'the message_id the send call returned' }),
  project_id: Type.String(),
  email_key: Type.String(),
  email: Type.String(),
  user_id: Nullable(Type.String()),
  status: StringEnum(MESSAGE_READ_STATUSES, {
    description:
      'the delivery status; `accepted` while the mailer has not recorded the message yet (it is queued on the bus, behind a backlog or a stopped mailer): its timeline is then empty',
  }),
  accepted_at: Type.String({ format: 'date-time', description: 'when the gateway accepted the send' }),
  subject: Nullable(Type.String()),
  opened: Type.Boolean(),
  clicked: Type.Boolean(),
  opens: Type.Integer({ minimum: 0, description: 'times the open pixel was fetched' }),
  clicks: Type.Integer({ minimum: 0, description: 'tracked link clicks, all links together' }),
  tags: Type.Array(Type.String(), { description: 'the tags the send gave' }),
  metadata: Type.Record(Type.String(), Type.String(), { description: 'the metadata the send gave' }),
  attachments: Type.Array(AttachmentInfo, { description: "the send's attachments: name, type and size (the content is not read back)" }),
  send_at: Type.Optional(Type.String({ format: 'date-time', description: 'a scheduled send: when it goes (or went)' })),
  test: Type.Boolean({
    description: 'sent with a test key: rendered and recorded, its outcome simulated from the recipient address, never delivered',
    examples: [false],
  }),
  cc: Type.Optional(
    Type.Array(Type.String(), {
      description: `the cc addresses the send gave (that of a person since erased reads \`${ERASED_COPY_ADDRESS}\`); absent when it gave none`,
    }),
  ),
  bcc: Type.Optional(
    Type.Array(Type.String(), {
      description: `the bcc addresses the send gave (that of a person since erased reads \`${ERASED_COPY_ADDRESS}\`); absent when it gave none`,
    }),
  ),
  dropped_copies: Type.Optional(
    Type.Array(DroppedCopy, {
      description:
        'the cc and bcc addresses the last delivery attempt did not send to, and why (each of the others got its own mail, in its own SMTP transaction); absent when it sent to every copy',
    }),
  ),
  delivered_copies: Type.Optional(
    Type.Array(DeliveredCopy, {
      description:
        "the cc and bcc addresses the relay took, over every attempt. The relay may take them while it refuses the recipient: the message is then `bounced` (or `deferred`, and its next attempt goes to the recipient alone), since its status is the recipient's, and the copies listed here were sent all the same. Absent when no copy was taken",
    }),
  ),
  copy_reports: Type.Optional(
    Type.Array(CopyReport, {
      description:
        "bounces, complaints and unsubscribes about the message's cc and bcc addresses, reported after it was sent: one per copy and kind, in the order they came. They change neither the message's status nor its timeline, which are its recipient's; absent when there are none",
    }),
  ),
  created_at: Timestamp,
  updated_at: Timestamp,
  timeline: Type.Array(TimelineEntry),
});
export type Message = Static<typeof Message>;

/** The largest rendered HTML the mailer keeps of a message; beyond it the HTML is cut and `truncated` set. */
export const MESSAGE_CONTENT_MAX_HTML_BYTES = 256 * 1024;

/** A message's email as rendered for its recipient: what the admin panel shows. */
export const MessageContent = Type.Object({
  subject: Type.String(),
  html: Type.String({
    description:
      'the HTML as rendered from the template, before open and click tracking were added (so viewing it counts no open); at most 256 KB',
  }),
  text: Type.String({ description: 'the plain-text part as sent' }),
  truncated: Type.Boolean({ description: 'the HTML was longer than 256 KB and is cut there' }),
});
export type MessageContent = Static<typeof MessageContent>;

export const MessageList = pageOf(Message);
export type MessageList = Static<typeof MessageList>;

export const MessageListQuery = Type.Object(
  {
    email: Type.Optional(Email),
    user_id: Type.Optional(UserId),
    status: Type.Optional(MessageStatusSchema),
    email_key: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 200,
        description: "only messages of the transactional email with this key (the message's email_key)",
      }),
    ),
    tag: Type.Optional(Type.String({ pattern: Tag.pattern, description: 'only messages sent with this tag' })),
    from: Type.Optional(Type.String({ format: 'date-time', description: 'only messages accepted at or after this time' })),
    to: Type.Optional(Type.String({ format: 'date-time', description: 'only messages accepted at or before this time' })),
    test: Type.Optional(
      Type.Boolean({
        description:
          'true: only test messages (those sent with a test key), which the log leaves out otherwise; a test key reads only these, whatever it passes',
        examples: [true],
      }),
    ),
    ...PageParams,
  },
  { additionalProperties: false },
);
export type MessageListQuery = Static<typeof MessageListQuery>;

export const MessageStatsQuery = Type.Object(
  {
    from: Type.String({ ...Day, description: 'the first UTC day included, YYYY-MM-DD' }),
    to: Type.String({ ...Day, description: `the last UTC day included (at most ${MAX_STATS_DAYS} days after from)` }),
  },
  { additionalProperties: false },
);
export type MessageStatsQuery = Static<typeof MessageStatsQuery>;

export const MessageStats = Type.Object({
  data: Type.Array(
    Type.Object({
      day: Type.String({ format: 'date' }),
      counts: Type.Record(Type.String(), Type.Integer({ minimum: 0 }), {
        description:
          'messages that reached each status that day (queued: accepted that day; deferred: first deferral), every status present',
      }),
    }),
    { description: 'every day from `from` to `to`, oldest first' },
  ),
});
export type MessageStats = Static<typeof MessageStats>;

export const MessageParams = Type.Object({ projectId: ObjectIdString, messageId: Type.String({ pattern: '^msg_[a-f0-9]{32}$' }) });

/** One attachment of a message: its place in the message's `attachments`, from 0. */
export const MessageAttachmentParams = Type.Object({
  ...MessageParams.properties,
  index: Type.Integer({
    minimum: 0,
    maximum: ATTACHMENT_LIMITS.count - 1,
    description: "the attachment's place in the message's attachments, from 0",
    examples: [0],
  }),
});

const SUPPRESSION_REASON_MEANINGS =
  'hard_bounce: its mail system said it takes no mail; soft_bounce_limit: too many of its messages soft-bounced; complaint: its owner reported a message as spam; unsubscribed; manual: the client suppressed it';

/** One reason an address gets no mail, since when, and the message that gave it. */
export const SuppressionCause = Type.Object({
  reason: StringEnum(SUPPRESSION_REASONS, { description: SUPPRESSION_REASON_MEANINGS }),
  created_at: Timestamp,
  message_id: Nullable(Type.String({ description: 'the message whose bounce or complaint gave this reason' })),
});
export type SuppressionCause = Static<typeof SuppressionCause>;

/**
 * An address of a project that gets no mail, and why (`unsubscribed` holds only for emails not sent
 * to the unsubscribed): every reason it has, and the strongest of them.
 */
export const Suppression = Type.Object({
  email: Type.String(),
  reason: StringEnum(SUPPRESSION_REASONS, {
    description: `the strongest of its reasons (complaint, then hard_bounce, soft_bounce_limit, manual, unsubscribed): a complaint is never lifted. ${SUPPRESSION_REASON_MEANINGS}`,
  }),
  created_at: Type.String({
    format: 'date-time',
    description: 'since when the address is suppressed: its first reason (the list is ordered by it)',
  }),
  message_id: Nullable(Type.String({ description: 'the message whose bounce or complaint gave the strongest reason' })),
  reasons: Type.Array(SuppressionCause, { description: 'every reason the address has, oldest first, each once' }),
});
export type Suppression = Static<typeof Suppression>;

export const SuppressionList = pageOf(Suppression);
export type SuppressionList = Static<typeof SuppressionList>;

export const SuppressionListQuery = Type.Object(
  {
    email: Type.Optional(Email),
    reason: Type.Optional(StringEnum(SUPPRESSION_REASONS)),
    ...PageParams,
  },
  { additionalProperties: false },
);
export type SuppressionListQuery = Static<typeof SuppressionListQuery>;

export const CreateSuppressionRequest = Type.Object(
  { email: Email, reason: Type.Literal('manual', { description: 'the only reason a client gives; the others come from the mail itself' }) },
  { additionalProperties: false },
);
export type CreateSuppressionRequest = Static<typeof CreateSuppressionRequest>;

export const SuppressionParams = Type.Object({ projectId: ObjectIdString, email: Email });
