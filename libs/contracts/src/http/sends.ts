import { Type, type Static } from '@sinclair/typebox';
import { ATTACHMENT_LIMITS, CONTENT_LIMITS, MESSAGE_OPTION_LIMITS, RESERVED_HEADERS, SEND_AT_LIMITS } from '../values';
import { DOCUMENT_LIMITS, Email, FIELD_NAME_PATTERN, FreeFormObject, LanguageTag, StandardAttributes, UserId } from '../common';
import { ProblemBody } from './shared';

const L = MESSAGE_OPTION_LIMITS;
export const Tag = Type.String({
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
      description: `addresses the email is copied to, named in its Cc header; at most ${L.copies + 1} addresses with the recipient (and a content send's further to), none twice. They are not registered as users; a suppressed one is dropped (the message's dropped_copies says so)`,
      examples: [['accounts@example.com']],
    }),
  ),
  bcc: Type.Optional(
    Type.Array(Email, {
      maxItems: L.copies,
      description: `addresses the email is blind-copied to: each gets its own mail, in its own SMTP transaction, and is named in no header; counted with cc (at most ${L.copies + 1} addresses with the recipient)`,
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

/** A send's user: its email, optional user_id, standard attributes and custom fields. */
const sendUser = (role: string) =>
  Type.Object(
    { email: Email, user_id: Type.Optional(UserId), ...StandardAttributes },
    {
      additionalProperties: Type.Unknown(),
      propertyNames: { pattern: FIELD_NAME_PATTERN },
      maxProperties: 100,
      'x-document': DOCUMENT_LIMITS,
      description: `${role}: email, optional user_id, standard attributes and custom fields; keys inside a field's value: 1 to 128 characters, no NUL, no '.', not starting with '$'; at most ${DOCUMENT_LIMITS.maxDepth} levels deep and ${DOCUMENT_LIMITS.maxBytes / 1024} KB as JSON`,
    },
  );

const SendUser = sendUser('the recipient');

/** What one send says: its recipient, the template's data and the message's options. */
const SendFields = {
  user: SendUser,
  data: Type.Optional(FreeFormObject({ description: 'variables for the template' })),
  language: Type.Optional(
    Type.String({
      ...LanguageTag,
      description:
        "the template's language variant to send (exact tag, then its primary subtag, then the default); absent: the user's language, from this send's user or else the stored profile",
    }),
  ),
  ...MessageOptions,
};

export const SendEmailRequest = Type.Object(SendFields, { additionalProperties: false });
export type SendEmailRequest = Static<typeof SendEmailRequest>;

const C = CONTENT_LIMITS;

/** What a content send says instead of naming a stored email: its sender, recipients, subject and bodies, and its tracking. */
const ContentFields = {
  from: Type.Optional(
    Type.String({
      minLength: 3,
      maxLength: 254 + C.fromNameLength + 3,
      pattern: '^[^\\r\\n]+$',
      description: `the sender: an address, or a display name and an address as \`Name <address>\`; on the project's verified sender domain (else a 422 naming the domain). By default the project's from_email and from_name`,
      examples: ['Acme Billing <billing@acme.example>'],
    }),
  ),
  to: Type.Union(
    [
      Email,
      Type.Array(Email, {
        minItems: 1,
        maxItems: L.copies + 1,
        description: `the first is the message's recipient; the others are copies shown in the To header beside it, each sent in its own SMTP transaction as a cc is (at most ${L.copies + 1} addresses across to, cc and bcc, none twice)`,
      }),
    ],
    { description: 'the recipient, or a list whose first address is the recipient', examples: ['ada@example.com'] },
  ),
  subject: Type.String({
    minLength: 1,
    maxLength: C.subjectLength,
    pattern: '^[^\\r\\n]*$',
    description: `1 to ${C.subjectLength} characters, no line break`,
    examples: ['Your receipt'],
  }),
  html: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: C.htmlBytes,
      description: `the HTML body, as sent (no template is applied): at most ${C.htmlBytes / 1024} KB as UTF-8. html, text or both`,
    }),
  ),
  text: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: C.textBytes,
      description: `the plain-text body, as sent: at most ${C.textBytes / 1024} KB as UTF-8. Without it, the mail has none`,
    }),
  ),
  track_opens: Type.Optional(Type.Boolean({ description: "count opens with a pixel in the HTML; by default the project's track_opens" })),
  track_clicks: Type.Optional(
    Type.Boolean({ description: "count clicks by rewriting the HTML's links; by default the project's track_clicks" }),
  ),
  user: Type.Optional(
    sendUser(
      "the recipient as a user of the project, registered or updated as a trigger's user is; its email must be the recipient's (the first to). Without it, no user is registered",
    ),
  ),
  ...MessageOptions,
};

/** A send that brings its content: the mail as the app made it, sent under every rule a template send keeps. */
export const ContentSendRequest = Type.Object(ContentFields, { additionalProperties: false });
export type ContentSendRequest = Static<typeof ContentSendRequest>;

const AcceptedSendAt = Type.Optional(Type.String({ format: 'date-time', description: 'a scheduled send: when it goes' }));

export const SendAccepted = Type.Object({
  status: Type.Literal('accepted'),
  request_id: Type.String(),
  message_id: Type.String(),
  send_at: AcceptedSendAt,
});
export type SendAccepted = Static<typeof SendAccepted>;

/** The most messages one batch send may hold. */
export const SEND_BATCH_MAX = 500;

/** One message of a batch send: a send (as POST …/emails/{emailKey}/send takes it) naming its email, or a content send (ContentBatchItem). */
export const SendBatchItem = Type.Object(
  { email_key: Type.String({ minLength: 1, maxLength: 64, description: "the email's key (e.g. welcome) or id" }), ...SendFields },
  { additionalProperties: false },
);
export type SendBatchItem = Static<typeof SendBatchItem>;

/** One message of a batch send that brings its content, as POST …/emails/send takes it (told from a SendBatchItem by having no email_key). */
export const ContentBatchItem = ContentSendRequest;
export type ContentBatchItem = ContentSendRequest;

export const SendBatchRequest = Type.Object(
  {
    messages: Type.Array(Type.Record(Type.String(), Type.Unknown()), {
      minItems: 1,
      maxItems: SEND_BATCH_MAX,
      description: `1 to ${SEND_BATCH_MAX} messages, each a SendBatchItem naming its email ({email_key, user, data?, reply_to?, cc?, bcc?, headers?, tags?, metadata?, attachments?, send_at?}) or, without email_key, a content send as POST …/emails/send takes it ({to, subject, html?, text?, from?, user?, …}). Each is checked on its own: a bad one is rejected in the answer, and the others are sent`,
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
