import { ERASED_COPY_ADDRESS } from '@postbus/contracts';
import type {
  AttachmentRef,
  CopyKind,
  CopyReportEvent,
  DeliveredCopy,
  DroppedCopy,
  Message,
  SendContent,
  TimelineEventName,
} from '@postbus/contracts';

/** One triggered email as accepted: written once, never updated (updates scan on FerretDB). */
export interface MessageDoc {
  _id: string;
  projectId: string;
  /** A template send: the stored email and the template version it named (a content send has `content` instead). */
  emailId?: string;
  emailKey?: string;
  templateId?: string;
  templateVersion?: number;
  /** The template's catalog revision the gateway planned the send with: the projection waits until it has it. */
  templateRevision?: number;
  /** The language variant the send named (BCP 47); absent: the user's, or the default. */
  language?: string;
  /** A content send: its subject, bodies, sender and tracking, as the gateway accepted them. */
  content?: SendContent;
  /** Sent through SMTP submission (absent: the HTTP API). */
  source?: 'smtp';
  email: string;
  userId: string | null;
  user: Record<string, unknown>;
  data: Record<string, unknown>;
  acceptedAt: Date;
  createdAt: Date;
  /** The send's options, when it gave them (see EmailTriggerCommand). */
  replyTo?: string;
  headers?: Record<string, string>;
  tags?: string[];
  metadata?: Record<string, string>;
  /** The send's attachments, their bytes in the AttachmentStore under the message id and position. */
  attachments?: AttachmentRef[];
  /** A scheduled send: when it goes. */
  sendAt?: Date;
  /** Sent with a test key: its outcome is simulated (domain/delivery/simulated-relay.ts), and it is listed apart. */
  test?: true;
  /** A content send's further To addresses, shown beside the recipient's. */
  to?: string[];
  cc?: string[];
  bcc?: string[];
}

/** A copy of a message (a further to, a cc or a bcc address), and its position among the copies (from 1: to, cc, then bcc), which its own tokens name. */
export interface MessageCopy {
  email: string;
  kind: CopyKind;
  position: number;
}

/**
 * A message's copies, in position order. An erased person's copy is left out, and the others keep
 * their positions: an erasure replaces the address in place (ERASED_COPY_ADDRESS).
 */
export const copiesOf = (message: Pick<MessageDoc, 'to' | 'cc' | 'bcc'>): MessageCopy[] =>
  [
    ...(message.to ?? []).map((email) => ({ email, kind: 'to' as const })),
    ...(message.cc ?? []).map((email) => ({ email, kind: 'cc' as const })),
    ...(message.bcc ?? []).map((email) => ({ email, kind: 'bcc' as const })),
  ].flatMap((copy, i) => (copy.email === ERASED_COPY_ADDRESS ? [] : [{ ...copy, position: i + 1 }]));

/** The copy at a position, unless it is gone (erased, or never there). */
export const copyAt = (message: Pick<MessageDoc, 'to' | 'cc' | 'bcc'>, position: number): MessageCopy | undefined =>
  copiesOf(message).find((c) => c.position === position);

/**
 * The event of an entry about one of the message's copies (a report about a cc or bcc address),
 * named apart from the timeline's own: no status, count or webhook ever takes it for the recipient's.
 */
export type CopyEntryEvent = `copy_${CopyReportEvent}`;

export const copyEntryEvent = (event: CopyReportEvent): CopyEntryEvent => `copy_${event}`;

/** Whether an entry is about one of the message's copies (see CopyEntryEvent), not part of its timeline. */
export const isCopyEntry = (
  e: Pick<EventDoc, 'event'>,
): e is EventDoc & { event: CopyEntryEvent; copy: { email: string; kind: CopyKind } } => e.event.startsWith('copy_');

/**
 * One entry of a message's timeline after `queued` (which the message itself stands for), or an
 * entry about one of its copies, kept in the same numbering (see CopyEntryEvent).
 */
export interface EventDoc {
  /** `<messageId>:<attempt + 1>` for delivery (a replay inserts nothing), `<messageId>:e<n>` for engagement. */
  _id: string;
  messageId: string;
  projectId: string;
  event: TimelineEventName | CopyEntryEvent;
  sequence: number;
  at: Date;
  smtp?: { code: number; response: string };
  reason?: string;
  url?: string;
  attempt?: number;
  subject?: string;
  /** Delivery: the template's language variant this attempt rendered; absent: its default (or no template). */
  language?: string;
  /** Delivery: the template version this attempt rendered, when not the one the send was accepted with. */
  templateVersion?: number;
  /** Engagement: what is counted once (`opened`, `unsubscribed`, `clicked:<hash of the link>`). */
  key?: string;
  /** Delivery: the message's cc and bcc addresses this attempt did not send to. */
  droppedCopies?: DroppedCopy[];
  /** Delivery: the message's cc and bcc addresses the relay took in this attempt (whatever it said of the recipient). */
  deliveredCopies?: DeliveredCopy[];
  /** A copy's entry: the cc or bcc address the report was about. */
  copy?: { email: string; kind: CopyKind };
  /** Engagement: how many times it happened (the first open, one link, the unsubscribe); only the first is an event. */
  count?: number;
}

/**
 * A message's email as rendered (the HTML before tracking was added): written once, with the
 * outcome of the first attempt that rendered it, and read and deleted by `_id` (= message id).
 */
export interface ContentDoc {
  _id: string;
  subject: string;
  html: string;
  text: string;
  /** The HTML or the text was longer than MESSAGE_CONTENT_MAX_HTML_BYTES and is cut there. */
  truncated: boolean;
}

/**
 * A message as clients read it, kept whole once its delivery is over (sent, bounced, failed,
 * suppressed), so that a page of the message log costs one read a message instead of the message
 * and its timeline's probes. Replaced by `_id` when an open or a click changes it; a message still
 * in delivery has none and is read from its parts.
 */
export interface SummaryDoc {
  _id: string;
  projectId: string;
  view: Message;
}
