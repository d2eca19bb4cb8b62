import type { MessageData } from '@postbus/contracts';

/** A webhook body: `{"type", "timestamp", "data"}` (docs/architecture.md#webhooks), data in the API's snake_case. */
export interface WebhookEvent {
  type: string;
  timestamp: string;
  projectId: string;
  data: Record<string, unknown>;
}

const defined = (o: Record<string, unknown>) => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined));

export function messageEvent(type: string, e: MessageData<'message.sent'>): WebhookEvent {
  return {
    type,
    timestamp: e.at,
    projectId: e.projectId,
    data: defined({
      message_id: e.messageId,
      project_id: e.projectId,
      email_key: e.emailKey,
      email: e.email,
      user_id: e.userId,
      event: e.event,
      sequence: e.sequence,
      smtp: e.smtp,
      reason: e.reason,
      url: e.url,
      attempt: e.attempt,
    }),
  };
}

export function userUnsubscribed(e: MessageData<'user.unsubscribed'>): WebhookEvent {
  return {
    type: 'user.unsubscribed',
    timestamp: e.unsubscribedAt,
    projectId: e.projectId,
    data: { project_id: e.projectId, email: e.email, user_id: e.userId, reason: e.reason, unsubscribed_at: e.unsubscribedAt },
  };
}

export function userUpdateRejected(e: MessageData<'user.update_rejected'>, at: string): WebhookEvent {
  return {
    type: 'user.update_rejected',
    timestamp: at,
    projectId: e.projectId,
    data: defined({ project_id: e.projectId, email: e.user.email, user_id: e.user.userId, command: e.command, reason: e.reason }),
  };
}

export function userErasureScheduled(e: MessageData<'user.erasure_scheduled'>): WebhookEvent {
  return {
    type: 'user.erasure_scheduled',
    timestamp: e.requestedAt,
    projectId: e.projectId,
    data: {
      erasure_id: e.erasureId,
      project_id: e.projectId,
      email: e.email,
      user_id: e.userId,
      erase_at: e.eraseAt,
      requested_at: e.requestedAt,
    },
  };
}

/** The erasure is complete: the payload names no one (the subscriber matches it by `erasure_id`). */
export function userErased(e: MessageData<'user.erased'>): WebhookEvent {
  return {
    type: 'user.erased',
    timestamp: e.completedAt,
    projectId: e.projectId,
    data: {
      erasure_id: e.erasureId,
      project_id: e.projectId,
      requested_at: e.requestedAt,
      erase_at: e.eraseAt,
      completed_at: e.completedAt,
    },
  };
}

export const bodyOf = (event: WebhookEvent): string => JSON.stringify({ type: event.type, timestamp: event.timestamp, data: event.data });
