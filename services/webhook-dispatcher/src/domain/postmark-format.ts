import { POSTMARK_STREAM, type SuppressionReason, type WebhookBody } from '@postbus/contracts';
import { isMessageBody, relayAnswerOf, type MessageBody, type SuppressionBody } from './format-inputs';

/**
 * Postbus's webhook bodies as Postmark writes its own: one record per event, its `RecordType`
 * telling which, with Postmark's field names (docs/webhook-formats.md has the table, and what has
 * no counterpart). Postmark's numeric `ServerID`, and the sender and subject of a bounce, are
 * left out: Postbus's events do not have them.
 */

interface MessageRecord {
  RecordType: string;
  MessageStream: string;
  MessageID: string;
  Tag: string;
  Metadata: Record<string, string>;
}

export type PostmarkBody = Record<string, unknown> & { RecordType: string };

/** The bounce types (Postmark's table) that Postbus's events come as. */
const BOUNCES = {
  bounced: {
    Type: 'HardBounce',
    TypeCode: 1,
    Name: 'Hard bounce',
    Description: 'The server was unable to deliver your message (ex: unknown user, mailbox not found).',
    Inactive: true,
    CanActivate: true,
  },
  deferred: {
    Type: 'Transient',
    TypeCode: 2,
    Name: 'Message delayed',
    Description: 'The server could not temporarily deliver your message (ex: Message is delayed due to network troubles).',
    Inactive: false,
    CanActivate: true,
  },
  // Postbus gave up on the message (its retries ran out, or it could not be rendered or sent at all): no bounce report to classify.
  failed: {
    Type: 'Unknown',
    TypeCode: 2048,
    Name: 'Unknown',
    Description: 'The message could not be sent (retries exhausted, or a prerequisite missing); Details says why.',
    Inactive: false,
    CanActivate: true,
  },
  // A complaint's suppression is never lifted in Postbus.
  complained: {
    Type: 'SpamComplaint',
    TypeCode: 100001,
    Name: 'Spam complaint',
    Description: 'The subscriber explicitly marked this message as spam.',
    Inactive: true,
    CanActivate: false,
  },
} as const;

/** Postmark's three suppression reasons (an unsubscribe is a ManualSuppression by the recipient, as Postmark records one). */
const SUPPRESSIONS: Record<SuppressionReason, { SuppressionReason: string; Origin: 'Recipient' | 'Customer' }> = {
  hard_bounce: { SuppressionReason: 'HardBounce', Origin: 'Recipient' },
  soft_bounce_limit: { SuppressionReason: 'HardBounce', Origin: 'Recipient' },
  complaint: { SuppressionReason: 'SpamComplaint', Origin: 'Recipient' },
  unsubscribed: { SuppressionReason: 'ManualSuppression', Origin: 'Recipient' },
  manual: { SuppressionReason: 'ManualSuppression', Origin: 'Customer' },
};

/** The Postbus event types a postmark-format endpoint can get. */
export const POSTMARK_EVENT_TYPES: readonly string[] = [
  'message.sent',
  ...Object.keys(BOUNCES).map((event) => `message.${event}`),
  'message.opened',
  'message.clicked',
  'suppression.created',
  'suppression.deleted',
];

function messageRecord(RecordType: string, { data }: MessageBody): MessageRecord {
  return { RecordType, MessageStream: POSTMARK_STREAM, MessageID: data.message_id, Tag: data.tags[0] ?? '', Metadata: data.metadata };
}

function messageBody(body: MessageBody): PostmarkBody | null {
  const { data, timestamp } = body;
  switch (data.event) {
    case 'sent':
      return { ...messageRecord('Delivery', body), Recipient: data.email, DeliveredAt: timestamp, Details: relayAnswerOf(data) };
    case 'bounced':
    case 'deferred':
    case 'failed':
    case 'complained':
      return {
        ...messageRecord(data.event === 'complained' ? 'SpamComplaint' : 'Bounce', body),
        // Postbus's bounces have no numbers of their own: 0, as the message details' BounceID.
        ID: 0,
        ...BOUNCES[data.event],
        Details: relayAnswerOf(data),
        Email: data.email,
        BouncedAt: timestamp,
        DumpAvailable: false,
      };
    case 'opened':
      return { ...messageRecord('Open', body), Recipient: data.email, ReceivedAt: timestamp, FirstOpen: true };
    case 'clicked':
      return { ...messageRecord('Click', body), Recipient: data.email, ReceivedAt: timestamp, OriginalLink: data.url ?? '' };
    case 'scheduled':
    case 'queued':
    case 'suppressed':
    case 'canceled':
      return null;
  }
}

function subscriptionChange({ type, timestamp, data }: SuppressionBody): PostmarkBody {
  const created = type === 'suppression.created';
  return {
    RecordType: 'SubscriptionChange',
    MessageStream: POSTMARK_STREAM,
    MessageID: data.message_id,
    ChangedAt: timestamp,
    Recipient: data.email,
    // A lift is the client's (a DELETE of the suppression, or its resubscribe).
    Origin: created ? SUPPRESSIONS[data.reason].Origin : 'Customer',
    SuppressSending: created,
    SuppressionReason: created ? SUPPRESSIONS[data.reason].SuppressionReason : null,
    // Postbus's suppression events do not carry the tag and metadata of the message that caused them.
    Tag: null,
    Metadata: {},
  };
}

/** The body a postmark-format endpoint gets for this event, or null when Postmark has no counterpart. */
export function postmarkBody(body: WebhookBody): PostmarkBody | null {
  if (isMessageBody(body)) return messageBody(body);
  switch (body.type) {
    case 'suppression.created':
    case 'suppression.deleted':
      return subscriptionChange(body);
    // Postmark has no test record: the endpoint's test event is Postbus's own.
    case 'webhook.test':
      return { RecordType: 'Test', type: body.type, timestamp: body.timestamp, data: body.data };
    case 'user.unsubscribed':
    case 'user.update_rejected':
    case 'user.erasure_scheduled':
    case 'user.erased':
      return null;
  }
}
