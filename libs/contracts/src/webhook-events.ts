import { Type, type Static, type TObject } from '@sinclair/typebox';
import { Nullable, StringEnum, Timestamp } from './common';
import type { MessageData } from './messages';
import { SUPPRESSION_REASONS, USER_UPDATE_REJECTED_REASONS, WEBHOOK_TEST_EVENT_TYPE, type MessageWebhookEvent } from './values';

/**
 * What Postbus POSTs to a webhook endpoint: `{"type", "timestamp", "data"}`, `data` in the API's
 * snake_case (docs/architecture.md#webhooks). One schema per event type; the gateway publishes them in
 * the OpenAPI document's `webhooks` section, from which the SDKs' event types are generated.
 */

const body = <T extends string, D extends TObject>(type: T, data: D, description: string) =>
  Type.Object(
    {
      type: Type.Literal(type),
      timestamp: Type.String({ format: 'date-time', description: 'when it happened' }),
      data,
    },
    { description },
  );

const messageWebhookData = <E extends MessageWebhookEvent>(event: E) =>
  Type.Object({
    message_id: Type.String({ description: 'the message_id the send call returned' }),
    project_id: Type.String(),
    email_key: Nullable(
      Type.String({ description: 'the transactional email the message was sent as; null for a content send (POST …/emails/send, SMTP)' }),
    ),
    email: Type.String({ description: 'the recipient' }),
    user_id: Nullable(Type.String()),
    event: Type.Literal(event),
    sequence: Type.Integer({ minimum: 1, description: 'per message, from 1 (queued): order events that arrive out of order by it' }),
    smtp: Type.Optional(Type.Object({ code: Type.Integer(), response: Type.String() }, { description: "the relay's answer" })),
    reason: Type.Optional(
      Type.String({
        description: 'why it was deferred, bounced, failed or suppressed; for a bounce or a complaint reported later, what the report said',
      }),
    ),
    url: Type.Optional(Type.String({ description: 'clicked: the link followed' })),
    attempt: Type.Optional(Type.Integer({ minimum: 1, description: 'the delivery attempt this event is about' })),
    tags: Type.Array(Type.String(), { description: 'the tags the send gave' }),
    metadata: Type.Record(Type.String(), Type.String(), {
      description: "the metadata the send gave: match the event to the client's own records",
    }),
    send_at: Type.Optional(Type.String({ format: 'date-time', description: 'a scheduled send: when it goes (or was to go)' })),
    test: Type.Boolean({
      description: 'the message was sent with a test key: this event was simulated, no mail was delivered',
      examples: [false],
    }),
  });

const MESSAGE_EVENT_DESCRIPTIONS: Record<MessageWebhookEvent, string> = {
  scheduled: 'A send with send_at was accepted: the message waits for its time (it can be cancelled until then).',
  queued: 'A send was accepted and the message queued.',
  sent: 'The relay accepted the message.',
  deferred: 'A delivery attempt failed for now; it is retried.',
  bounced:
    "The relay refused the message for good, or the recipient's mail system reported a hard bounce after the relay took it; the address is suppressed.",
  failed: 'The message could not be sent (retries exhausted, or a prerequisite missing).',
  suppressed: 'The message was not sent: the recipient is unsubscribed or being erased.',
  opened: 'The recipient opened the message (the first open).',
  clicked: 'The recipient followed a tracked link (the first click of each link).',
  complained: "The recipient reported the message as spam (a mailbox provider's feedback report); the address is suppressed.",
  canceled: 'A scheduled message was cancelled before its time: it is never sent.',
};

const messageBody = <E extends MessageWebhookEvent>(event: E) =>
  body(`message.${event}`, messageWebhookData(event), MESSAGE_EVENT_DESCRIPTIONS[event]);

export const MessageScheduledWebhook = messageBody('scheduled');
export const MessageQueuedWebhook = messageBody('queued');
export const MessageSentWebhook = messageBody('sent');
export const MessageDeferredWebhook = messageBody('deferred');
export const MessageBouncedWebhook = messageBody('bounced');
export const MessageFailedWebhook = messageBody('failed');
export const MessageSuppressedWebhook = messageBody('suppressed');
export const MessageOpenedWebhook = messageBody('opened');
export const MessageClickedWebhook = messageBody('clicked');
export const MessageComplainedWebhook = messageBody('complained');
export const MessageCanceledWebhook = messageBody('canceled');

export const UserUnsubscribedWebhook = body(
  'user.unsubscribed',
  Type.Object({
    project_id: Type.String(),
    email: Type.String(),
    user_id: Nullable(Type.String()),
    reason: Nullable(Type.String()),
    unsubscribed_at: Timestamp,
  }),
  'A user unsubscribed (through the API, or a one-click unsubscribe).',
);

export const UserUpdateRejectedWebhook = body(
  'user.update_rejected',
  Type.Object({
    project_id: Type.String(),
    email: Type.Optional(Type.String()),
    user_id: Type.Optional(Type.String()),
    command: Type.String({ description: 'the command rejected, e.g. user.update' }),
    reason: Type.Union(USER_UPDATE_REJECTED_REASONS.map((reason) => Type.Literal(reason))),
  }),
  'An accepted update or unsubscribe could not be applied.',
);

export const UserErasureScheduledWebhook = body(
  'user.erasure_scheduled',
  Type.Object({
    erasure_id: Type.String(),
    project_id: Type.String(),
    email: Nullable(Type.String()),
    user_id: Nullable(Type.String()),
    erase_at: Timestamp,
    requested_at: Timestamp,
  }),
  'An erasure was requested; it runs at erase_at.',
);

export const UserErasedWebhook = body(
  'user.erased',
  Type.Object({
    erasure_id: Type.String({ description: 'match it with the user.erasure_scheduled event: this one names no one' }),
    project_id: Type.String(),
    requested_at: Timestamp,
    erase_at: Timestamp,
    completed_at: Timestamp,
  }),
  "The erasure is complete: every service has erased the person's data.",
);

const suppressionWebhookData = Type.Object({
  project_id: Type.String(),
  email: Type.String(),
  reason: StringEnum(SUPPRESSION_REASONS, { description: 'why the address gets no mail (see the suppression list)' }),
  created_at: Timestamp,
  message_id: Nullable(Type.String({ description: 'the message whose bounce or complaint caused it' })),
});

export const SuppressionCreatedWebhook = body(
  'suppression.created',
  suppressionWebhookData,
  "An address entered the project's suppression list: it bounced, complained, unsubscribed, or the client suppressed it.",
);

export const SuppressionDeletedWebhook = body(
  'suppression.deleted',
  suppressionWebhookData,
  "An address left the project's suppression list (the client lifted it): a later trigger sends to it again.",
);

export const WebhookTestWebhook = body(
  WEBHOOK_TEST_EVENT_TYPE,
  Type.Object({ webhook_id: Type.String() }),
  'Sent by the "send a test event" call only.',
);

/** Every webhook body, by its `type`. */
export const WebhookBodySchemas = {
  'message.scheduled': MessageScheduledWebhook,
  'message.queued': MessageQueuedWebhook,
  'message.sent': MessageSentWebhook,
  'message.deferred': MessageDeferredWebhook,
  'message.bounced': MessageBouncedWebhook,
  'message.failed': MessageFailedWebhook,
  'message.suppressed': MessageSuppressedWebhook,
  'message.opened': MessageOpenedWebhook,
  'message.clicked': MessageClickedWebhook,
  'message.complained': MessageComplainedWebhook,
  'message.canceled': MessageCanceledWebhook,
  'user.unsubscribed': UserUnsubscribedWebhook,
  'user.erasure_scheduled': UserErasureScheduledWebhook,
  'user.erased': UserErasedWebhook,
  'user.update_rejected': UserUpdateRejectedWebhook,
  'suppression.created': SuppressionCreatedWebhook,
  'suppression.deleted': SuppressionDeletedWebhook,
  [WEBHOOK_TEST_EVENT_TYPE]: WebhookTestWebhook,
} as const;

export type WebhookBodyType = keyof typeof WebhookBodySchemas;
export type WebhookBody<T extends WebhookBodyType = WebhookBodyType> = { [K in T]: Static<(typeof WebhookBodySchemas)[K]> }[T];

/** Builders: the body each bus event becomes (the webhook dispatcher sends them; the benchmark too). */

const defined = <T extends Record<string, unknown>>(o: T): T =>
  Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;

/** `message.<event>` from the mailer's message event. */
export function messageWebhook<E extends MessageWebhookEvent>(
  type: `message.${E}`,
  e: MessageData<'message.sent'>,
): WebhookBody<`message.${E}`> {
  return {
    type,
    timestamp: e.at,
    data: defined({
      message_id: e.messageId,
      project_id: e.projectId,
      email_key: e.emailKey,
      email: e.email,
      user_id: e.userId,
      // The bus message of type message.<event> has that event.
      event: e.event as E,
      sequence: e.sequence,
      smtp: e.smtp,
      reason: e.reason,
      url: e.url,
      attempt: e.attempt,
      tags: e.tags ?? [],
      metadata: e.metadata ?? {},
      send_at: e.sendAt,
      test: e.test === true,
    }),
  } as WebhookBody<`message.${E}`>;
}

export const userUnsubscribedWebhook = (e: MessageData<'user.unsubscribed'>): WebhookBody<'user.unsubscribed'> => ({
  type: 'user.unsubscribed',
  timestamp: e.unsubscribedAt,
  data: { project_id: e.projectId, email: e.email, user_id: e.userId, reason: e.reason, unsubscribed_at: e.unsubscribedAt },
});

/** `at`: when the rejection was published (the event carries no time of its own). */
export const userUpdateRejectedWebhook = (e: MessageData<'user.update_rejected'>, at: string): WebhookBody<'user.update_rejected'> => ({
  type: 'user.update_rejected',
  timestamp: at,
  data: defined({ project_id: e.projectId, email: e.user.email, user_id: e.user.userId, command: e.command, reason: e.reason }),
});

export const userErasureScheduledWebhook = (e: MessageData<'user.erasure_scheduled'>): WebhookBody<'user.erasure_scheduled'> => ({
  type: 'user.erasure_scheduled',
  timestamp: e.requestedAt,
  data: {
    erasure_id: e.erasureId,
    project_id: e.projectId,
    email: e.email,
    user_id: e.userId,
    erase_at: e.eraseAt,
    requested_at: e.requestedAt,
  },
});

/** The erasure is complete: the body names no one (the subscriber matches it by `erasure_id`). */
export const userErasedWebhook = (e: MessageData<'user.erased'>): WebhookBody<'user.erased'> => ({
  type: 'user.erased',
  timestamp: e.completedAt,
  data: {
    erasure_id: e.erasureId,
    project_id: e.projectId,
    requested_at: e.requestedAt,
    erase_at: e.eraseAt,
    completed_at: e.completedAt,
  },
});

/** `suppression.created` or `.deleted`; the time is the change's (created or lifted). */
export const suppressionWebhook = <T extends 'suppression.created' | 'suppression.deleted'>(
  type: T,
  e: MessageData<'suppression.created'>,
): WebhookBody<T> => ({
  type,
  timestamp: type === 'suppression.deleted' ? (e.deletedAt ?? e.createdAt) : e.createdAt,
  data: { project_id: e.projectId, email: e.email, reason: e.reason, created_at: e.createdAt, message_id: e.messageId },
});

export const webhookTestBody = (webhookId: string, at: Date): WebhookBody<'webhook.test'> => ({
  type: WEBHOOK_TEST_EVENT_TYPE,
  timestamp: at.toISOString(),
  data: { webhook_id: webhookId },
});

/** The bytes a webhook body is sent as. */
export const serialiseWebhookBody = (b: WebhookBody): string => JSON.stringify({ type: b.type, timestamp: b.timestamp, data: b.data });
