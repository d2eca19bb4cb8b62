import type { MessageWebhookEvent, WebhookBody } from '@postbus/contracts';

/** What the Resend and Postmark formats are written from: Postbus's own bodies. */
export type MessageBody = WebhookBody<`message.${MessageWebhookEvent}`>;
export type SuppressionBody = WebhookBody<'suppression.created' | 'suppression.deleted'>;

export const isMessageBody = (body: WebhookBody): body is MessageBody => body.type.startsWith('message.');

/** When a message id says its send was accepted (`msg_`, 12 hex digits of milliseconds, 20 more), as ISO 8601. */
export function acceptedAtOf(messageId: string): string | undefined {
  const time = /^msg_([0-9a-f]{12})[0-9a-f]{20}$/.exec(messageId)?.[1];
  return time === undefined ? undefined : new Date(parseInt(time, 16)).toISOString();
}

/** What a message event says happened at the relay or in the report: Postbus's reason, else the relay's answer. */
export const relayAnswerOf = (data: MessageBody['data']): string => data.reason ?? data.smtp?.response ?? '';
