import { Type, type Static } from '@sinclair/typebox';
import {
  ATTACHMENT_LIMITS,
  COPY_KINDS,
  SEND_SOURCES,
  COPY_REPORT_EVENTS,
  ENGAGEMENT_EVENTS,
  ERASED_COPY_ADDRESS,
  MAX_STATS_DAYS,
  MESSAGE_READ_STATUSES,
  MESSAGE_STATUSES,
  TIMELINE_EVENTS,
} from '../values';
import { Day } from '../payments';
import { Email, Nullable, ObjectIdString, pageOf, PageParams, StringEnum, Timestamp, UserId } from '../common';
import { AttachmentInfo, Tag } from './sends';

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
  email_key: Nullable(Type.String({ description: 'the transactional email a template send named; null for a content send' })),
  source: StringEnum(SEND_SOURCES, { description: 'how the send came: the HTTP API (a template or a content send) or SMTP submission' }),
  template: Nullable(
    Type.Object(
      { id: Type.String(), version: Type.Integer({ minimum: 1 }) },
      { description: 'the template a template send was rendered from, and its version; null for a content send' },
    ),
  ),
  language: Nullable(
    Type.String({
      description:
        "the template's language variant the message was rendered in; null: its default (or a content send, or not rendered yet)",
    }),
  ),
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
  to: Type.Optional(
    Type.Array(Type.String(), {
      description: `a content send's further to addresses, shown beside the recipient's (that of a person since erased reads \`${ERASED_COPY_ADDRESS}\`); absent when it gave none`,
    }),
  ),
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
        'the copies (further to, cc and bcc addresses) the last delivery attempt did not send to, and why (each of the others got its own mail, in its own SMTP transaction); absent when it sent to every copy',
    }),
  ),
  delivered_copies: Type.Optional(
    Type.Array(DeliveredCopy, {
      description:
        "the copies (further to, cc and bcc addresses) the relay took, over every attempt. The relay may take them while it refuses the recipient: the message is then `bounced` (or `deferred`, and its next attempt goes to the recipient alone), since its status is the recipient's, and the copies listed here were sent all the same. Absent when no copy was taken",
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
