import type { Envelope } from './submitted-mail';

/** An SMTP reply: its code, and its text starting with the enhanced status code (`5.7.1 …`). */
export interface SmtpAnswer {
  code: number;
  message: string;
}

/** What an SMTP client logged in with: a project id and an API key of the client that owns it. */
export interface Credentials {
  projectId: string;
  apiKey: string;
}

/**
 * An answer of the gateway: its status and JSON body (null when it had none), and its Retry-After
 * in seconds when it said one; status 0 when no answer came (refused, reset, timed out), with why.
 */
export interface GatewayAnswer {
  status: number;
  body: unknown;
  retryAfter?: number;
  /** Why no answer came (status 0). */
  error?: string;
}

/** Where the call comes from: the SMTP client's address, which the gateway counts authentication failures and lockouts by. */
export interface CallOrigin {
  clientAddress: string;
}

/**
 * The gateway, the one accept path of every send (clients/gateway-client.ts): each call carries
 * the client's credentials and the service's own token, which makes the gateway trust the client
 * address it is told and record the message's source as `smtp`.
 */
export interface Gateway {
  /** GET /v1/auth/whoami: whose credentials these are (200 `{client_id, key_id, scope, project_id}`, 401, 429). */
  whoami(credentials: Credentials, origin: CallOrigin): Promise<GatewayAnswer>;
  /** POST /v1/projects/{projectId}/emails/send with this JSON body (200 `{status, request_id, message_id}` once durably queued). */
  send(credentials: Credentials, send: PreparedSend, origin: CallOrigin): Promise<GatewayAnswer>;
}

/** A planned send with its body serialized, ready for the gateway. */
export interface PreparedSend {
  /** The JSON of the send's ContentSendRequest (libs/contracts). */
  body: string;
  /** The Idempotency-Key the message's X-Postbus-Idempotency-Key gave, when it gave one. */
  idempotencyKey?: string;
}

/** What reading a submitted message gave: its sends, serialized, or the refusal of it. */
export type ReadSubmission = { sends: PreparedSend[] } | { refusal: SmtpAnswer };

/** The message to read: its bytes and its envelope. */
export interface SubmissionInput {
  raw: Buffer;
  envelope: Envelope;
}

/**
 * Reads a submitted message into its content sends (parse/: mailparser on worker threads, within a
 * time budget). A message that cannot be read, or not in its budget, is answered with a refusal;
 * a failure of the reader itself throws (the client is told to try again).
 */
export interface SubmissionReader {
  read(input: SubmissionInput): Promise<ReadSubmission>;
}
