import type { components } from './generated/openapi.js';

/** An RFC 9457 problem body as the gateway sends it (`application/problem+json`). */
export type Problem = components['schemas']['Problem'];
/** One invalid field: `pointer` is a JSON Pointer into the request body, e.g. `/user/email`. */
export type FieldError = NonNullable<Problem['errors']>[number];

/** The gateway's problem type for a repeat of an Idempotency-Key whose first request is still running. */
export const IDEMPOTENCY_IN_FLIGHT = '/problems/idempotency-in-flight';

/** Every error this SDK throws. API errors carry the gateway's problem body. */
export class PostbusError extends Error {
  /** HTTP status, when the gateway answered. */
  readonly status: number | undefined;
  /** The problem type, e.g. `/problems/validation-failed`. */
  readonly type: string | undefined;
  readonly title: string | undefined;
  readonly detail: string | undefined;
  /** Field errors (400/422): each with a JSON Pointer into the request body. */
  readonly errors: FieldError[];
  /** The gateway's request id: quote it when asking an operator to look. */
  readonly requestId: string | undefined;
  /** The problem body as received, when there was one. */
  readonly problem: Problem | undefined;

  constructor(message: string, details: { status?: number; problem?: Problem; requestId?: string; cause?: unknown } = {}) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
    this.name = new.target.name;
    this.status = details.status ?? details.problem?.status;
    this.problem = details.problem;
    this.type = details.problem?.type;
    this.title = details.problem?.title;
    this.detail = details.problem?.detail;
    this.errors = details.problem?.errors ?? [];
    this.requestId = details.problem?.request_id ?? details.requestId;
  }
}

/** 400, 413, 415 or 422: the request as sent cannot be accepted; sending it again will not help. */
export class ValidationError extends PostbusError {}
/** 401: no credentials, or a client id and API key the gateway does not know. */
export class AuthenticationError extends PostbusError {}
/** 403: the key's scope does not allow this operation (an `sdk` key calling a `full` one). */
export class PermissionError extends PostbusError {}
/** 404: unknown project, email, user or message — or one of another client. */
export class NotFoundError extends PostbusError {}
/**
 * 409: a conflict, e.g. an Idempotency-Key whose first request is still in flight (after the retries),
 * or removing a suppression that only the recipient may lift (`/problems/suppression-is-a-complaint`).
 */
export class ConflictError extends PostbusError {}
/** 429: over the rate limit. */
export class RateLimitError extends PostbusError {
  /** Seconds the gateway asked to wait (`Retry-After`), when it said. */
  readonly retryAfter: number | undefined;
  constructor(message: string, details: ConstructorParameters<typeof PostbusError>[1] & { retryAfter?: number }) {
    super(message, details);
    this.retryAfter = details.retryAfter;
  }
}
/** 5xx: the gateway, or a service behind it (e.g. the bus: 503), failed. */
export class ServerError extends PostbusError {}
/** The gateway could not be reached, or the connection broke before an answer. */
export class ConnectionError extends PostbusError {}
/** No answer within `timeoutMs`. */
export class TimeoutError extends PostbusError {}

export type WebhookFailure = 'secret' | 'headers' | 'timestamp' | 'signature' | 'payload';

/** A webhook that must not be trusted; `reason` says which check failed. */
export class WebhookVerificationError extends PostbusError {
  readonly reason: WebhookFailure;
  constructor(reason: WebhookFailure, message: string) {
    super(message);
    this.reason = reason;
  }
}

/** The typed error for an HTTP answer that is not a success. */
export function errorForResponse(status: number, problem: Problem | undefined, retryAfter: number | undefined): PostbusError {
  const message = problem ? `${problem.title}${problem.detail ? `: ${problem.detail}` : ''} (HTTP ${status})` : `HTTP ${status}`;
  const details = { status, ...(problem ? { problem } : {}) };
  if (status === 400 || status === 413 || status === 415 || status === 422) return new ValidationError(message, details);
  if (status === 401) return new AuthenticationError(message, details);
  if (status === 403) return new PermissionError(message, details);
  if (status === 404) return new NotFoundError(message, details);
  if (status === 409) return new ConflictError(message, details);
  if (status === 429) return new RateLimitError(message, { ...details, ...(retryAfter === undefined ? {} : { retryAfter }) });
  if (status >= 500) return new ServerError(message, details);
  return new PostbusError(message, details);
}
