import {
  messageWebhook,
  serialiseWebhookBody,
  suppressionWebhook,
  userErasedWebhook,
  userErasureScheduledWebhook,
  userUnsubscribedWebhook,
  userUpdateRejectedWebhook,
  type MessageData,
  type MessageWebhookEvent,
  type WebhookBody,
} from '@postbus/contracts';

/**
 * A webhook body (its schema and builder: libs/contracts/src/webhook-events.ts) with the project it
 * is about, which picks the endpoints it goes to.
 */
export type WebhookEvent = WebhookBody & { projectId: string };

const about = <B extends WebhookBody>(body: B, projectId: string): B & { projectId: string } => ({ ...body, projectId });

export const messageEvent = (type: `message.${MessageWebhookEvent}`, e: MessageData<'message.sent'>): WebhookEvent =>
  about(messageWebhook(type, e), e.projectId);

export const suppressionChanged = (
  type: 'suppression.created' | 'suppression.deleted',
  e: MessageData<'suppression.created'>,
): WebhookEvent => about(suppressionWebhook(type, e), e.projectId);

export const userUnsubscribed = (e: MessageData<'user.unsubscribed'>): WebhookEvent => about(userUnsubscribedWebhook(e), e.projectId);

export const userUpdateRejected = (e: MessageData<'user.update_rejected'>, at: string): WebhookEvent =>
  about(userUpdateRejectedWebhook(e, at), e.projectId);

export const userErasureScheduled = (e: MessageData<'user.erasure_scheduled'>): WebhookEvent =>
  about(userErasureScheduledWebhook(e), e.projectId);

/** The erasure is complete: the payload names no one (the subscriber matches it by `erasure_id`). */
export const userErased = (e: MessageData<'user.erased'>): WebhookEvent => about(userErasedWebhook(e), e.projectId);

/** The bytes sent: `{"type", "timestamp", "data"}`, without the routing projectId. */
export const bodyOf = (event: WebhookEvent): string => serialiseWebhookBody(event);
