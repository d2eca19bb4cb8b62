/** One field-level problem, located by a JSON pointer into the request body or query. */
export interface FieldError {
  pointer: string;
  message: string;
}

/** RFC 9457 problem details, as every error response carries them. */
export interface Problem {
  type: string;
  title: string;
  status: number;
  detail?: string;
  errors?: FieldError[];
  request_id?: string;
}

/** An error whose message is safe to show to the client; anything else becomes a bare 500. */
export class AppError extends Error {
  readonly headers: Record<string, string> = {};
  constructor(
    readonly status: number,
    readonly slug: string,
    readonly title: string,
    detail?: string,
    readonly errors?: FieldError[],
  ) {
    super(detail ?? title);
    this.name = new.target.name;
  }

  toProblem(requestId?: string): Problem {
    return {
      type: `/problems/${this.slug}`,
      title: this.title,
      status: this.status,
      ...(this.message !== this.title ? { detail: this.message } : {}),
      ...(this.errors?.length ? { errors: this.errors } : {}),
      ...(requestId ? { request_id: requestId } : {}),
    };
  }
}

export class ValidationError extends AppError {
  constructor(detail: string, errors?: FieldError[]) {
    super(400, 'validation-failed', 'The request is invalid', detail, errors);
  }
}

export class MalformedRequestError extends AppError {
  constructor(detail: string) {
    super(400, 'malformed-request', 'The request could not be parsed', detail);
  }
}

export class UnauthorizedError extends AppError {
  constructor(detail = 'Send the client id and API key as HTTP Basic credentials.') {
    super(401, 'unauthorized', 'Authentication is required', detail);
    this.headers['WWW-Authenticate'] = 'Basic realm="postbus", charset="UTF-8"';
  }
}

export class ForbiddenError extends AppError {
  constructor(detail: string) {
    super(403, 'forbidden', 'The credentials do not allow this operation', detail);
  }
}

export class NotFoundError extends AppError {
  constructor(detail = 'The resource does not exist.') {
    super(404, 'not-found', 'Not found', detail);
  }
}

export class ConflictError extends AppError {
  constructor(slug: string, detail: string) {
    super(409, slug, 'Conflict', detail);
  }
}

export class PayloadTooLargeError extends AppError {
  /** `errors`: the fields that can make this route's body so large, when it knows them. */
  constructor(limit: string, errors?: FieldError[]) {
    super(413, 'payload-too-large', 'The request body is too large', `The body must not exceed ${limit}.`, errors);
  }
}

export class UnsupportedMediaTypeError extends AppError {
  constructor() {
    super(415, 'unsupported-media-type', 'The request body must be JSON', 'Send the body with Content-Type: application/json.');
  }
}

export class UnprocessableError extends AppError {
  constructor(slug: string, detail: string, errors?: FieldError[]) {
    super(422, slug, 'The request cannot be processed', detail, errors);
  }
}

export class TooManyRequestsError extends AppError {
  constructor(detail: string, retryAfterSeconds: number, headers: Record<string, string> = {}) {
    super(429, 'rate-limited', 'Too many requests', detail);
    Object.assign(this.headers, headers, { 'Retry-After': String(retryAfterSeconds) });
  }
}

export class ServiceUnavailableError extends AppError {
  constructor(detail: string, retryAfterSeconds = 5) {
    super(503, 'service-unavailable', 'The service is temporarily unavailable', detail);
    this.headers['Retry-After'] = String(retryAfterSeconds);
  }
}

const INTERNAL: Problem = {
  type: '/problems/internal',
  title: 'Internal error',
  status: 500,
  detail: 'Something went wrong on our side; quote the request id when reporting it.',
};

/**
 * The problem body to send for any thrown value: AppErrors speak for themselves, an unreachable
 * database or broker is a 503, anything else is hidden behind a bare 500.
 */
export function problemFor(error: unknown, requestId?: string): { problem: Problem; headers: Record<string, string> } {
  if (error instanceof AppError) return { problem: error.toProblem(requestId), headers: error.headers };
  if (isTransientError(error))
    return problemFor(new ServiceUnavailableError('A backing service is unreachable; retry later.', 5), requestId);
  return { problem: { ...INTERNAL, ...(requestId ? { request_id: requestId } : {}) }, headers: {} };
}

const TRANSIENT_NAMES =
  /^(MongoNetworkError|MongoNetworkTimeoutError|MongoServerSelectionError|MongoNotConnectedError|MongoTopologyClosedError|KafkaJS\w*ConnectionError|KafkaJSNumberOfRetriesExceeded|BusUnavailableError)$/;

/**
 * True for failures of infrastructure (database or broker unreachable) rather than of the request
 * or message: a consumer retries them without bound, an HTTP server answers 503.
 */
export const isTransientError = (error: unknown): boolean =>
  error instanceof Error && (TRANSIENT_NAMES.test(error.name) || (error.cause !== undefined && isTransientError(error.cause)));
