import { Type } from '@sinclair/typebox';
import { CommonConfig, InternalApiConfig } from '@postbus/config';

const port = (fallback: number, description: string) => Type.Integer({ minimum: 0, maximum: 65535, default: fallback, description });

// Only the log level, parent watch and query audit of CommonConfig: the service has no bus and no
// database of its own (every message goes through the gateway's HTTP API).
export const SubmissionConfig = Type.Object({
  LOG_LEVEL: CommonConfig.LOG_LEVEL,
  STOP_WITH_PARENT: CommonConfig.STOP_WITH_PARENT,
  QUERY_AUDIT: CommonConfig.QUERY_AUDIT,
  ...InternalApiConfig,
  PORT: port(8088, 'internal HTTP port (health, metrics)'),
  GATEWAY_URL: Type.String({
    default: 'http://127.0.0.1:8080',
    pattern: '^https?://',
    description:
      'the gateway, whose public API takes every submitted message (POST /v1/projects/{projectId}/emails/send) and checks every login',
  }),
  SUBMISSION_GATEWAY_TIMEOUT_MS: Type.Integer({
    minimum: 100,
    default: 30_000,
    description:
      'how long a call to the gateway may take (a send of 10 MB of attachments included); past it the client gets 451 and may retry',
  }),
  SUBMISSION_HOST: Type.String({
    minLength: 1,
    default: '127.0.0.1',
    description: 'the address both SMTP ports listen on: 0.0.0.0 in production, where apps reach it',
  }),
  SUBMISSION_PORT: port(2587, 'the SMTP submission port with STARTTLS (587 in production)'),
  SUBMISSION_TLS_PORT: port(2465, 'the SMTP submission port with implicit TLS (465 in production)'),
  SUBMISSION_HOSTNAME: Type.String({
    default: 'localhost',
    pattern: '^[A-Za-z0-9.-]+$',
    description: 'the name the servers greet with, and the self-signed certificate’s in development: the host apps connect to',
  }),
  SUBMISSION_TLS_KEY_FILE: Type.String({
    default: '',
    description:
      'PEM private key of both ports; with SUBMISSION_TLS_CERT_FILE required when NODE_ENV=production (without them, development makes a self-signed certificate)',
  }),
  SUBMISSION_TLS_CERT_FILE: Type.String({
    default: '',
    description: 'PEM certificate chain of both ports, reloaded when the files change',
  }),
  SUBMISSION_TLS_WATCH_MS: Type.Integer({
    minimum: 100,
    default: 5_000,
    description: 'how often the key and certificate files are looked at; a changed pair is used for the connections that follow',
  }),
  SUBMISSION_MAX_MESSAGE_BYTES: Type.Integer({
    minimum: 1024,
    default: 10 * 1024 * 1024,
    description:
      'the largest message taken (advertised with SIZE); past it the message is refused with 552 5.3.4, and no byte past it is held',
  }),
  SUBMISSION_MAX_CONNECTIONS: Type.Integer({
    minimum: 1,
    default: 200,
    description: 'connections open at once on both ports together; more get 421',
  }),
  SUBMISSION_CONNECTIONS_PER_NETWORK: Type.Integer({
    minimum: 1,
    default: 50,
    description: 'connections open at once from one network (an IPv4 /24, an IPv6 /64); more get 421',
  }),
  SUBMISSION_CONNECTIONS_PER_MINUTE: Type.Integer({
    minimum: 1,
    default: 600,
    description: 'connections one network (an IPv4 /24, an IPv6 /64) may open per minute; more get 421',
  }),
  SUBMISSION_COMMANDS_PER_CONNECTION: Type.Integer({
    minimum: 10,
    default: 2_000,
    description: 'SMTP commands on one connection; past them it is closed with 421',
  }),
  SUBMISSION_TRANSACTIONS_PER_CONNECTION: Type.Integer({
    minimum: 1,
    default: 100,
    description: 'messages (MAIL FROM) on one connection (Nodemailer’s pool sends 100 per connection); past them it is closed with 421',
  }),
  SUBMISSION_RECIPIENTS_PER_TRANSACTION: Type.Integer({
    minimum: 1,
    maximum: 50,
    default: 50,
    description: 'recipients of one message (a send has at most 50 across to, cc and bcc); more get 452',
  }),
  SUBMISSION_CONNECTION_LIFETIME_MS: Type.Integer({
    minimum: 1000,
    default: 600_000,
    description: 'how long one connection may stay open, however busy; then it is closed with 421',
  }),
  SUBMISSION_PARSE_THREADS: Type.Integer({
    minimum: 1,
    maximum: 16,
    default: 2,
    description:
      'worker threads that read submitted messages (MIME), off the SMTP servers’ event loop (one kept ready, the others started when needed)',
  }),
  SUBMISSION_PARSE_BUDGET_MS: Type.Integer({
    minimum: 10,
    default: 5_000,
    description:
      'how long reading one message may take on its worker thread (from its start there, not its wait for one); past it the thread is ended and the message refused with 554 5.6.0',
  }),
});

export type SubmissionConfig = typeof SubmissionConfig.static;
