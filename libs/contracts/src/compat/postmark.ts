import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { Nullable, StringEnum } from '../common';
import { ATTACHMENT_LIMITS, CONTENT_LIMITS, MESSAGE_OPTION_LIMITS } from '../values';
import { SEND_BATCH_MAX } from '../http/sends';

/**
 * Postmark's email API, as Postbus takes it at the gateway's root (POST /email, /email/batch,
 * /email/withTemplate, /email/batchWithTemplates, GET /messages/outbound/{id}/details): its
 * requests and answers, field for field as Postmark documents them. docs/moving-from-postmark.md
 * says what each field becomes in Postbus.
 */

/** Postmark's SDKs send null for a field they were not given (postmarker does for every one). */
const Maybe = <T extends TSchema>(schema: T) => Type.Optional(Nullable(schema));

/** Enough for the most addresses a message may name (50), each with a display name. */
const ADDRESS_LIST_LENGTH = 32 * 1024;

const AddressList = (description: string) =>
  Type.String({
    maxLength: ADDRESS_LIST_LENGTH,
    description: `${description}: comma-separated addresses, each bare or with a display name ("Name <address>", the name quoted when it holds a comma)`,
    examples: ['Ada Lovelace <ada@example.com>, grace@example.com'],
  });

/** The values of TrackLinks. */
export const POSTMARK_LINK_TRACKING = ['None', 'HtmlAndText', 'HtmlOnly', 'TextOnly'] as const;
export type PostmarkLinkTracking = (typeof POSTMARK_LINK_TRACKING)[number];

/** The only message stream: a project's transactional mail. */
export const POSTMARK_STREAM = 'outbound';

export const PostmarkHeader = Type.Object(
  {
    Name: Type.String({ minLength: 1, maxLength: 76, description: 'an RFC 5322 field name' }),
    Value: Type.String({ maxLength: MESSAGE_OPTION_LIMITS.headerValueLength }),
  },
  { additionalProperties: false },
);
export type PostmarkHeader = Static<typeof PostmarkHeader>;

export const PostmarkAttachment = Type.Object(
  {
    Name: Type.String({
      minLength: 1,
      maxLength: ATTACHMENT_LIMITS.filenameLength,
      description: "the file's name",
      examples: ['invoice.pdf'],
    }),
    Content: Type.String({ description: 'the file, base64-encoded' }),
    ContentType: Maybe(Type.String({ maxLength: 127, description: "its media type; by default the one its name's extension stands for" })),
    ContentID: Maybe(
      Type.String({
        maxLength: ATTACHMENT_LIMITS.contentIdLength + 4,
        description: 'makes it an inline part, shown where the HTML says cid:<ContentID> (a leading "cid:" is taken off)',
        examples: ['cid:logo.png'],
      }),
    ),
    ContentLength: Maybe(Type.Integer({ minimum: 0, description: 'ignored: the size is that of Content' })),
    Disposition: Maybe(Type.String({ maxLength: 32, description: 'ignored: a file with a ContentID is inline, any other attached' })),
  },
  { additionalProperties: false },
);
export type PostmarkAttachment = Static<typeof PostmarkAttachment>;

/** What a send and a template send both say besides their content. */
const MessageFields = {
  From: Maybe(
    Type.String({
      maxLength: 254 + CONTENT_LIMITS.fromNameLength + 5,
      description:
        'the sender, an address or "Name <address>" on the project\'s verified sender domain (else ErrorCode 400); by default the project\'s from_email',
      examples: ['Acme Billing <billing@acme.example>'],
    }),
  ),
  To: AddressList("the recipients: the first is the message's recipient, the others are shown beside it"),
  Cc: Maybe(AddressList('addresses the message is copied to')),
  Bcc: Maybe(AddressList('addresses the message is blind-copied to')),
  ReplyTo: Maybe(Type.String({ maxLength: 254 + CONTENT_LIMITS.fromNameLength + 5, description: 'the reply address (one)' })),
  Headers: Maybe(
    Type.Array(PostmarkHeader, {
      maxItems: MESSAGE_OPTION_LIMITS.headers,
      description: `at most ${MESSAGE_OPTION_LIMITS.headers} custom headers, each name once`,
    }),
  ),
  Attachments: Maybe(Type.Array(PostmarkAttachment, { maxItems: ATTACHMENT_LIMITS.count })),
  Tag: Maybe(
    Type.String({
      maxLength: 1000,
      description: `one tag: 1 to ${MESSAGE_OPTION_LIMITS.tagLength} characters of A-Z a-z 0-9 _ . : - (the message log's tag filter)`,
      examples: ['receipt'],
    }),
  ),
  Metadata: Maybe(
    Type.Record(Type.String(), Type.String(), {
      maxProperties: MESSAGE_OPTION_LIMITS.metadata,
      description: `at most ${MESSAGE_OPTION_LIMITS.metadata} string pairs, carried in every webhook about the message`,
    }),
  ),
  MessageStream: Maybe(Type.String({ maxLength: 100, description: `"${POSTMARK_STREAM}", the one stream a project has` })),
};

/** POST /email: a message that brings its content. */
export const PostmarkMessage = Type.Object(
  {
    ...MessageFields,
    Subject: Type.String({ maxLength: CONTENT_LIMITS.subjectLength }),
    HtmlBody: Maybe(Type.String({ description: 'the HTML body; HtmlBody, TextBody or both' })),
    TextBody: Maybe(Type.String({ description: 'the plain-text body' })),
    TrackOpens: Maybe(Type.Boolean({ description: "count opens; by default the project's track_opens" })),
    TrackLinks: Maybe(
      StringEnum(POSTMARK_LINK_TRACKING, {
        description:
          "None, or HtmlOnly or HtmlAndText: count clicks on the HTML's links (the text part's are not rewritten); TextOnly is not offered. By default the project's track_clicks",
      }),
    ),
  },
  { additionalProperties: false },
);
export type PostmarkMessage = Static<typeof PostmarkMessage>;

/** POST /email/withTemplate: a message of one of the project's transactional emails. */
export const PostmarkTemplateMessage = Type.Object(
  {
    ...MessageFields,
    TemplateAlias: Maybe(
      Type.String({
        minLength: 1,
        maxLength: 64,
        description: "the key of one of the project's transactional emails",
        examples: ['welcome'],
      }),
    ),
    TemplateId: Maybe(Type.Integer({ description: 'not offered: Postbus names its emails by key (TemplateAlias)' })),
    TemplateModel: Type.Record(Type.String(), Type.Unknown(), { description: "the template's data" }),
    InlineCss: Maybe(Type.Boolean({ description: 'ignored: the template is sent as it renders' })),
    Subject: Maybe(Type.String({ maxLength: CONTENT_LIMITS.subjectLength, description: "ignored: the template's subject applies" })),
    TrackOpens: Maybe(Type.Boolean({ description: "ignored: the email's own track_opens applies" })),
    TrackLinks: Maybe(StringEnum(POSTMARK_LINK_TRACKING, { description: "ignored: the email's own track_clicks applies" })),
  },
  { additionalProperties: false },
);
export type PostmarkTemplateMessage = Static<typeof PostmarkTemplateMessage>;

/** The most messages a batch may hold, as Postmark's and Postbus's own batches. */
export const POSTMARK_BATCH_MAX = SEND_BATCH_MAX;

/**
 * A batch's messages, each checked on its own (a bad one answers its own ErrorCode); more than
 * POSTMARK_BATCH_MAX is ErrorCode 410.
 */
const BatchItems = (item: string) => Type.Array(Type.Unknown(), { description: `up to ${POSTMARK_BATCH_MAX} messages, each ${item}` });

/** POST /email/batch: a bare array of messages. */
export const PostmarkBatch = BatchItems('as POST /email takes it');

/** POST /email/batchWithTemplates. */
export const PostmarkTemplateBatch = Type.Object(
  { Messages: BatchItems('as POST /email/withTemplate takes it') },
  { additionalProperties: false },
);
export type PostmarkTemplateBatch = Static<typeof PostmarkTemplateBatch>;

/** Postmark's answer to a failed request (HTTP 401, 422, 429, …), and to a failed message of a batch. */
export const PostmarkError = Type.Object({
  ErrorCode: Type.Integer({ description: "Postmark's API error code (10 bad token, 300 invalid request, 406 inactive recipient, …)" }),
  Message: Type.String(),
});
export type PostmarkError = Static<typeof PostmarkError>;

export const PostmarkSendResponse = Type.Object({
  To: Type.String({ description: 'the To the send gave' }),
  SubmittedAt: Type.String({ format: 'date-time' }),
  MessageID: Type.String({ description: "the message's id (Postbus's msg_…), for GET /messages/outbound/{id}/details" }),
  ErrorCode: Type.Literal(0),
  Message: Type.Literal('OK'),
});
export type PostmarkSendResponse = Static<typeof PostmarkSendResponse>;

export const PostmarkBatchResponse = Type.Array(Type.Union([PostmarkSendResponse, PostmarkError]), {
  description: "one answer per message, in the request's order",
});
export type PostmarkBatchResponse = Static<typeof PostmarkBatchResponse>;

const PostmarkRecipient = Type.Object({
  Email: Type.String(),
  Name: Type.String({ description: 'empty: Postbus keeps no display names' }),
});

export const PostmarkMessageEvent = Type.Object({
  Recipient: Type.String(),
  Type: Type.String({
    description: 'Delivered, Transient, Bounced, Opened, LinkClicked, SubscriptionChanged, or Failed, Suppressed, Canceled',
  }),
  ReceivedAt: Type.String({ format: 'date-time' }),
  Details: Type.Record(Type.String(), Type.Unknown()),
});
export type PostmarkMessageEvent = Static<typeof PostmarkMessageEvent>;

/** GET /messages/outbound/{id}/details. */
export const PostmarkOutboundMessageDetails = Type.Object({
  MessageID: Type.String(),
  MessageStream: Type.Literal(POSTMARK_STREAM),
  Tag: Type.Optional(Type.String({ description: "the message's first tag" })),
  To: Type.Array(PostmarkRecipient),
  Cc: Type.Array(PostmarkRecipient),
  Bcc: Type.Array(PostmarkRecipient),
  Recipients: Type.Array(Type.String()),
  ReceivedAt: Type.String({ format: 'date-time', description: 'when Postbus accepted the send' }),
  Subject: Type.String(),
  Attachments: Type.Array(Type.String(), { description: "the files' names" }),
  Status: Type.String({ description: 'Queued, Scheduled, Sent, or Failed, Suppressed, Canceled' }),
  Metadata: Type.Record(Type.String(), Type.String()),
  Sandboxed: Type.Boolean({ description: 'sent with a test key: never delivered' }),
  HtmlBody: Type.Optional(Type.String({ description: 'as rendered, before tracking; absent until the message is rendered' })),
  TextBody: Type.Optional(Type.String()),
  MessageEvents: Type.Array(PostmarkMessageEvent),
});
export type PostmarkOutboundMessageDetails = Static<typeof PostmarkOutboundMessageDetails>;

export const PostmarkMessageParams = Type.Object({ messageId: Type.String({ minLength: 1, maxLength: 100 }) });
