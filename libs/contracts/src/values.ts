/**
 * The value lists of the contracts, stated once: statuses, event types, reasons and limits. Plain
 * constants with no imports, so that the admin panel bundles them (`@postbus/contracts/values`)
 * without TypeBox; the schemas in this package are built from them.
 */

/**
 * Delivery statuses in the order a message moves through them; engagement events follow `sent`.
 * A send with `send_at` starts `scheduled` (in place of `queued`) and is `canceled` if cancelled before it goes.
 */
export const MESSAGE_STATUSES = ['scheduled', 'queued', 'deferred', 'sent', 'bounced', 'failed', 'suppressed', 'canceled'] as const;
export type MessageStatus = (typeof MESSAGE_STATUSES)[number];

/**
 * The statuses a message read shows: the delivery statuses, and `accepted` for a message the
 * gateway took (it is on the bus) that the mailer has not recorded yet.
 */
export const MESSAGE_READ_STATUSES = ['accepted', ...MESSAGE_STATUSES] as const;
export type MessageReadStatus = (typeof MESSAGE_READ_STATUSES)[number];

/** The statuses a message's delivery ends in: no delivery event follows one of them. */
export const TERMINAL_STATUSES = ['sent', 'bounced', 'failed', 'suppressed', 'canceled'] as const satisfies readonly MessageStatus[];
export type TerminalStatus = (typeof TERMINAL_STATUSES)[number];

/** Whether a status (or any timeline event) ends a message's delivery. */
export const isTerminalStatus = (status: string): status is TerminalStatus => (TERMINAL_STATUSES as readonly string[]).includes(status);

/** What a recipient did with a sent message. */
export const ENGAGEMENT_EVENTS = ['opened', 'clicked', 'unsubscribed'] as const;
export type EngagementEvent = (typeof ENGAGEMENT_EVENTS)[number];

/**
 * What the recipient's mail system reported after the relay took a message, other than a hard
 * bounce (which turns the message `bounced`): a soft bounce (a delay, a full mailbox) and a spam
 * complaint. Neither is a delivery status.
 */
export const FEEDBACK_EVENTS = ['soft_bounced', 'complained'] as const;
export type FeedbackEvent = (typeof FEEDBACK_EVENTS)[number];

/** Every entry a message's timeline may have: the `event` of `message.<event>` on the bus. */
export const TIMELINE_EVENTS = [...MESSAGE_STATUSES, ...ENGAGEMENT_EVENTS, ...FEEDBACK_EVENTS] as const;
export type TimelineEventName = (typeof TIMELINE_EVENTS)[number];

/** The message events that reach webhooks as `message.<event>` (an unsubscribe reaches them as `user.unsubscribed`). */
export const MESSAGE_WEBHOOK_EVENTS = [
  'scheduled',
  'queued',
  'sent',
  'deferred',
  'bounced',
  'failed',
  'suppressed',
  'opened',
  'clicked',
  'complained',
  'canceled',
] as const;
export type MessageWebhookEvent = (typeof MESSAGE_WEBHOOK_EVENTS)[number];

/** The user events that reach webhooks. */
export const USER_WEBHOOK_EVENT_TYPES = ['user.unsubscribed', 'user.erasure_scheduled', 'user.erased', 'user.update_rejected'] as const;

/** The suppression list's changes that reach webhooks. */
export const SUPPRESSION_WEBHOOK_EVENT_TYPES = ['suppression.created', 'suppression.deleted'] as const;

/** The event types a webhook endpoint subscribes to. */
export const WEBHOOK_EVENT_TYPES = [
  ...MESSAGE_WEBHOOK_EVENTS.map((e) => `message.${e}` as const),
  ...USER_WEBHOOK_EVENT_TYPES,
  ...SUPPRESSION_WEBHOOK_EVENT_TYPES,
] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

/** What the "send a test event" call delivers; no endpoint subscribes to it. */
export const WEBHOOK_TEST_EVENT_TYPE = 'webhook.test';

/** A webhook delivery: pending (being tried), succeeded, or failed (every attempt failed). */
export const DELIVERY_STATUSES = ['pending', 'succeeded', 'failed'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

/** What one delivery attempt came to. */
export const DELIVERY_ATTEMPT_OUTCOMES = ['succeeded', 'retrying', 'failed'] as const;
export type DeliveryAttemptOutcome = (typeof DELIVERY_ATTEMPT_OUTCOMES)[number];

/** An erasure request: waiting for its time, executing (waiting for confirmations), completed. */
export const ERASURE_STATUSES = ['queued', 'executing', 'completed'] as const;
export type ErasureStatus = (typeof ERASURE_STATUSES)[number];

/** Why the users service rejected an update or unsubscribe (`user.update_rejected`). */
export const USER_UPDATE_REJECTED_REASONS = ['user_not_found', 'user_id_taken'] as const;
export type UserUpdateRejectedReason = (typeof USER_UPDATE_REJECTED_REASONS)[number];

/** Why the payments service rejected a payment (`payment.rejected`). */
export const PAYMENT_REJECTED_REASONS = ['user_not_found'] as const;
export type PaymentRejectedReason = (typeof PAYMENT_REJECTED_REASONS)[number];

/** A bounce's class: hard (the address takes no mail: suppress it) or soft (not now: count it). */
export const BOUNCE_CLASSES = ['hard', 'soft'] as const;
export type BounceClass = (typeof BOUNCE_CLASSES)[number];

/**
 * Why an address of a project gets no mail: it bounced hard, it soft-bounced SOFT_BOUNCE_LIMIT
 * messages, its owner reported a message as spam, it unsubscribed, or the client suppressed it.
 */
export const SUPPRESSION_REASONS = ['hard_bounce', 'soft_bounce_limit', 'complaint', 'unsubscribed', 'manual'] as const;
export type SuppressionReason = (typeof SUPPRESSION_REASONS)[number];

/** The longest range of UTC days one message stats read covers. */
export const MAX_STATS_DAYS = 400;

/**
 * How far ahead a send's `send_at` may be, and how far behind "now" it may be and still count as
 * now (the client's clock may run a little behind the gateway's): sent at once, through the schedule.
 */
export const SEND_AT_LIMITS = { maxAheadDays: 30, clockSkewMs: 60_000 } as const;

/** The size of one page of a list: at most `max` items, `default` when the query names none. */
export const PAGE_LIMIT = { max: 100, default: 50 } as const;

/**
 * Headers a send may not set: those Postbus writes itself, and those that only the relays and the
 * receivers may write, or that would take the message's identity, bounces or receipts away from
 * Postbus. Compared case-insensitively; a name ending in `*` covers every name it starts.
 *
 * Not reserved, on purpose: In-Reply-To and References (a client threading its messages, as a
 * ticket's replies, needs them; Postbus writes neither, and neither bears on signing, DMARC, the
 * return path or the unsubscribe), Comments and Keywords, and List-* fields other than the
 * unsubscribe (List-Id, List-Help: a client's own description of its mail).
 */
export const RESERVED_HEADERS = [
  // RFC 5322 originator and destination fields. Postbus writes them from the project and the send
  // (reply_to, cc, bcc), DMARC aligns From with the DKIM signing domain, and a Sender would name
  // another originator than the verified one.
  'From',
  'Sender',
  'Reply-To',
  'To',
  'Cc',
  'Bcc',
  'Subject',
  'Date',
  'Message-ID',
  // RFC 5322 resent fields (Resent-From, Resent-Sender, Resent-Message-ID…): the message would
  // claim to be forwarded by someone else.
  'Resent-*',
  // Trace fields, the relays' and receivers' to add (Received-SPF: RFC 7208); the return path is
  // Postbus's bounce address, and Errors-To, an old redirect of bounces, would take them from it.
  'Return-Path',
  'Received',
  'Received-SPF',
  'Errors-To',
  // The MIME structure, which the composer writes.
  'MIME-Version',
  'Content-*',
  // Authentication: Postbus's DKIM signature (and its predecessor's), and results only a receiver
  // states (RFC 8601, ARC: RFC 8617), which a sender's copy would forge.
  'DKIM-Signature',
  'DomainKey-Signature',
  'Authentication-Results',
  'ARC-*',
  // The one-click unsubscribe Postbus owes recipients (RFC 2369, RFC 8058; -Post included) and the
  // feedback loop's identifier.
  'List-Unsubscribe*',
  'Feedback-ID',
  // Read receipts (RFC 8098, and the older Return-Receipt-To): mail to an address each time the
  // message is read, outside Postbus's tracking, suppression and erasure.
  'Disposition-Notification-*',
  'Return-Receipt-To',
  'X-Postbus-*',
] as const;

const reservedExactly = new Set(RESERVED_HEADERS.filter((name) => !name.endsWith('*')).map((name) => name.toLowerCase()));
const reservedPrefixes = RESERVED_HEADERS.filter((name) => name.endsWith('*')).map((name) => name.slice(0, -1).toLowerCase());

/** Whether a send may not set this header (see RESERVED_HEADERS): by exact name or by prefix, in any case. */
export const isReservedHeader = (name: string): boolean => {
  const lower = name.toLowerCase();
  return reservedExactly.has(lower) || reservedPrefixes.some((prefix) => lower.startsWith(prefix));
};

/** The reserved names among these header names (see RESERVED_HEADERS), as given. */
export const reservedHeaderNames = (names: string[]): string[] => names.filter(isReservedHeader);

/**
 * How a copy of a message is addressed: named in the To header beside the recipient (a content
 * send's further `to` addresses), in the Cc header, or in no header (its own mail's envelope only).
 */
export const COPY_KINDS = ['to', 'cc', 'bcc'] as const;
export type CopyKind = (typeof COPY_KINDS)[number];

/**
 * What a copy's mail system reported after the message was sent: a hard bounce, a soft bounce
 * (counted toward SOFT_BOUNCE_LIMIT as a recipient's is) or a complaint. Each is the copy's own:
 * the message's status and timeline stay its recipient's.
 */
export const COPY_REPORT_EVENTS = ['bounced', 'soft_bounced', 'complained', 'unsubscribed'] as const;
export type CopyReportEvent = (typeof COPY_REPORT_EVENTS)[number];

/** What stands in a message's cc, bcc and copy lists for the address of a person since erased. */
export const ERASED_COPY_ADDRESS = '(erased)';

/** What one send may carry beyond its recipient and data. */
export const MESSAGE_OPTION_LIMITS = {
  headers: 20,
  headerValueLength: 998,
  tags: 10,
  tagLength: 64,
  metadata: 20,
  metadataKeyLength: 40,
  metadataValueLength: 500,
  /** The addresses besides the recipient (a content send's further to, cc and bcc) together: 50 addresses with the recipient. */
  copies: 49,
} as const;

/**
 * What a content send (one that brings its subject and bodies instead of naming a stored email)
 * may carry: they travel on the bus with its command, so together they stay well under a record's
 * 1 MB there; the mailer keeps at most MESSAGE_CONTENT_MAX_HTML_BYTES of the HTML for reads.
 */
export const CONTENT_LIMITS = {
  /** Characters: RFC 5322's line limit, which a folded header keeps to anyway. */
  subjectLength: 998,
  /** UTF-8 bytes of each body. */
  htmlBytes: 256 * 1024,
  textBytes: 256 * 1024,
  fromNameLength: 200,
} as const;

/** Where a message came from: the HTTP API (a template or a content send), or SMTP submission. */
export const SEND_SOURCES = ['api', 'smtp'] as const;
export type SendSource = (typeof SEND_SOURCES)[number];

/**
 * What a send's attachments may be: at most `count` files of at most `totalBytes` together
 * (decoded), each named in at most `filenameLength` characters. The mailer stores each in
 * documents of at most `chunkBytes`, which keeps every document well under a BSON document's 16 MB.
 */
export const ATTACHMENT_LIMITS = {
  count: 20,
  totalBytes: 10 * 1024 * 1024,
  filenameLength: 255,
  contentIdLength: 128,
  chunkBytes: 255 * 1024,
} as const;

/**
 * The largest body the send and batch routes take: the attachments' base64 (4/3 of their bytes)
 * and a megabyte for everything else. Every other route takes 1 MB (the gateway's BODY_LIMIT).
 */
export const SEND_BODY_LIMIT_BYTES = Math.ceil((ATTACHMENT_LIMITS.totalBytes * 4) / 3) + 1024 * 1024;

/**
 * File name extensions of programs and scripts a mail client may run on a click: an attachment
 * named so is refused (so is one whose content starts like a program; see the gateway's attachment check).
 */
export const EXECUTABLE_EXTENSIONS = [
  'exe',
  'bat',
  'cmd',
  'com',
  'scr',
  'msi',
  'msp',
  'pif',
  'cpl',
  'js',
  'jse',
  'vbs',
  'vbe',
  'wsf',
  'wsh',
  'hta',
  'jar',
  'ps1',
  'psm1',
  'sh',
  'bash',
  'zsh',
  'csh',
  'app',
  'dll',
  'sys',
  'reg',
  'lnk',
  'scf',
  'apk',
  'dmg',
  'pkg',
  'deb',
  'rpm',
  'run',
  'elf',
  'so',
  'dylib',
  'command',
  'gadget',
  'msc',
  'inf',
  'appx',
  'msix',
] as const;
