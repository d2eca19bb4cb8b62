export { Postbus, Emails, Users, Payments, Messages, Suppressions, Templates, Layouts } from './client.js';
export type { PostbusOptions, RequestOptions, FetchLike } from './http.js';
export {
  PostbusError,
  ValidationError,
  AuthenticationError,
  PermissionError,
  NotFoundError,
  ConflictError,
  RateLimitError,
  ServerError,
  ConnectionError,
  TimeoutError,
  WebhookVerificationError,
  IDEMPOTENCY_IN_FLIGHT,
  type Problem,
  type FieldError,
  type WebhookFailure,
} from './errors.js';
export {
  Webhook,
  verifyWebhook,
  type WebhookEvent,
  type WebhookEventType,
  type WebhookHeaders,
  type WebhookVerifyOptions,
} from './webhook.js';
export type * from './types.js';
export type { paths, components, operations } from './generated/openapi.js';
export { SDK_VERSION } from './version.js';
export { attachmentFromFile, type AttachmentInput } from './attachments.js';
