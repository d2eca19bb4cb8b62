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
  WebhookFormat,
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
  TemplateFormat,
  TemplateVariant,
  TemplateVersionList,
  CreateTemplateRequest,
  SaveTemplateRequest,
  PreviewRequest,
  DraftPreviewRequest,
  ValidateTemplateRequest,
  TemplateValidation,
  Layout,
  CreateLayoutRequest,
  SaveLayoutRequest,
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
  Suppression,
  SuppressionList,
  SuppressionReason,
  CreateSuppressionRequest,
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

// The contracts' value lists, from the subpath that holds only them (no TypeBox in the bundle).
export {
  TERMINAL_STATUSES,
  DELIVERY_STATUSES,
  WEBHOOK_EVENT_TYPES,
  WEBHOOK_TEST_EVENT_TYPE,
  MESSAGE_STATUSES,
  ERASURE_STATUSES,
  FEEDBACK_EVENTS,
  SUPPRESSION_REASONS,
  MAX_STATS_DAYS,
  PAGE_LIMIT,
} from '@postbus/contracts/values';

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

/** Where the template check found one part of a template wrong: its line and column (from 1) when it knows them. */
export type TemplateError = import('@postbus/contracts').TemplateValidation['errors'][number];

/** Who saved a version of a template or layout: an API key, directly or through a panel session it opened. */
export type SavedBy = import('@postbus/contracts').Template['saved_by'];

/** The versions of a template or a layout, newest first (both routes answer this shape). */
export type VersionList = import('@postbus/contracts').TemplateVersionList;
