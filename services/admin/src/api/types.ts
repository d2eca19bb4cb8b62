// The panel's types are the API's own: the TypeBox schemas that validate requests and generate
// /v1/openapi.json (libs/contracts). Imported as types only, so the bundle holds none of their code.
export type {
  Delivery,
  DeliveryAttempt,
  DeliveryList,
  DeliveryStatus,
  EraseAccepted,
  Message,
  MessageContent,
  MessageList,
  MessageStatus,
  Payment,
  PaymentList,
  Project,
  UserProfile,
  Webhook,
  WebhookEventType,
  WebhookList,
  WebhookWithSecret,
  CreateWebhookRequest,
  UpdateWebhookRequest,
  AdminSession,
  SenderDomain,
  TrackingDomain,
  CreateProjectRequest,
  UpdateProjectRequest,
  Template,
  TemplateVersionList,
  SaveTemplateRequest,
  PreviewRequest,
  TransactionalEmail,
  CreateEmailRequest,
  MessageStats,
  Revenue,
  Erasure,
  ErasureList,
  ErasureStatus,
  ApiKey,
  CreatedApiKey,
  CreateApiKeyRequest,
} from '@postbus/contracts';

/** An RFC 9457 problem body, as every /v1 error is answered. */
export interface Problem {
  type?: string;
  title?: string;
  status?: number;
  detail?: string;
  errors?: Array<{ pointer: string; message: string }>;
  request_id?: string;
}

/** A timeline entry of a message (the API's TimelineEntry). */
export type TimelineEntry = import('@postbus/contracts').Message['timeline'][number];

// Mirrors of the contracts' value lists: importing the arrays would pull TypeBox into the bundle.
export const TERMINAL_STATUSES = ['sent', 'bounced', 'failed', 'suppressed'] as const;
export const DELIVERY_STATUSES = ['pending', 'succeeded', 'failed'] as const;
export const WEBHOOK_EVENT_TYPES = [
  'message.queued',
  'message.sent',
  'message.deferred',
  'message.bounced',
  'message.failed',
  'message.suppressed',
  'message.opened',
  'message.clicked',
  'user.unsubscribed',
  'user.erasure_scheduled',
  'user.erased',
  'user.update_rejected',
] as const;
export const MESSAGE_STATUSES = ['queued', 'deferred', 'sent', 'bounced', 'failed', 'suppressed'] as const;
export const ERASURE_STATUSES = ['queued', 'executing', 'completed'] as const;

/** A list answer of the catalog routes (sender domains, templates, emails, keys): every item at once. */
export interface ListOf<T> {
  data: T[];
}

/** The rendered email of the template preview route (the API's RenderedEmail). */
export interface RenderedEmail {
  subject: string;
  html: string;
  text: string;
}
