import { Type, type Static } from '@sinclair/typebox';
import { StringEnum, Timestamp } from './common';
import { BOUNCE_CLASSES } from './values';

/**
 * What comes back: mail the inbound MX took for a return-path domain, and what it says about a
 * message once read. The MX stores the first INBOUND_KEPT_BYTES of a mail: reports put their
 * machine-readable parts first, and a returned copy with large attachments must not make a
 * message the broker refuses.
 */
export const INBOUND_KEPT_BYTES = 256 * 1024;

/** The label of the return-path subdomain of every sender domain: bounces for example.com go to pb-bounces.example.com. */
export const RETURN_PATH_LABEL = 'pb-bounces';

/** The return-path domain of a sender domain. */
export const returnPathDomainOf = (senderDomain: string): string => `${RETURN_PATH_LABEL}.${senderDomain.toLowerCase()}`;

export const InboundReceivedEvent = Type.Object({
  /** The mail's first INBOUND_KEPT_BYTES, base64. */
  raw: Type.String(),
  truncated: Type.Boolean(),
  mailFrom: Type.String(),
  rcptTo: Type.Array(Type.String()),
  remoteAddress: Type.String(),
  receivedAt: Timestamp,
});
export type InboundReceivedEvent = Static<typeof InboundReceivedEvent>;

/**
 * Which copy of a message a signed token names: its position, from 1, among the message's copies
 * (its cc, then its bcc), each of which goes in its own SMTP transaction with its own return path
 * and unsubscribe links. Absent for the message's recipient.
 */
export const CopyPosition = Type.Integer({ minimum: 1, maximum: 99 });

/** A delivery report about one of our messages, for its recipient. */
export const FeedbackBounceEvent = Type.Object({
  messageId: Type.String(),
  class: StringEnum(BOUNCE_CLASSES, { description: 'hard: the address takes no mail; soft: not now' }),
  /** RFC 3464 Action (failed, delayed). */
  action: Type.String(),
  /** rfc3464: a machine-readable report; notice: a plain-text one classified by its reply code or wording. */
  format: StringEnum(['rfc3464', 'notice']),
  status: Type.Optional(Type.String({ description: 'RFC 3463 status, e.g. 5.1.1' })),
  diagnosticCode: Type.Optional(Type.String({ maxLength: 1000 })),
  reportingMta: Type.Optional(Type.String({ maxLength: 255 })),
  remoteMta: Type.Optional(Type.String({ maxLength: 255 })),
  /** The address that failed, as the report names it (Final-Recipient), normalised: a message's cc or bcc bounces only that copy. */
  recipient: Type.Optional(Type.String({ maxLength: 320 })),
  /** The copy whose own return path the report came to: it is that copy's, whatever address it names. */
  copy: Type.Optional(CopyPosition),
  at: Timestamp,
});
export type FeedbackBounceEvent = Static<typeof FeedbackBounceEvent>;

/** A recipient reported one of our messages as spam (an RFC 5965 feedback report). */
export const FeedbackComplaintEvent = Type.Object({
  messageId: Type.String(),
  feedbackType: Type.String({ maxLength: 64 }),
  userAgent: Type.Optional(Type.String({ maxLength: 255 })),
  /** The address that complained, when the report names it (Original-Rcpt-To), normalised: a message's cc or bcc complains only for itself. */
  recipient: Type.Optional(Type.String({ maxLength: 320 })),
  /** The copy whose own return path or List-Unsubscribe address the report carried: it is that copy's, whatever address it names. */
  copy: Type.Optional(CopyPosition),
  at: Timestamp,
});
export type FeedbackComplaintEvent = Static<typeof FeedbackComplaintEvent>;

/** A recipient mailed the List-Unsubscribe address of one of our messages. */
export const FeedbackUnsubscribeEvent = Type.Object({
  messageId: Type.String(),
  /** A copy's own List-Unsubscribe address: that copy unsubscribes, not the recipient. */
  copy: Type.Optional(CopyPosition),
  at: Timestamp,
});
export type FeedbackUnsubscribeEvent = Static<typeof FeedbackUnsubscribeEvent>;
