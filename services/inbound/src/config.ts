import { Type } from '@sinclair/typebox';
import { CommonConfig, InternalApiConfig, RequiredInProduction } from '@postbus/config';

export const InboundConfig = Type.Object({
  ...CommonConfig,
  ...InternalApiConfig,
  PORT: Type.Integer({ minimum: 0, maximum: 65535, default: 8087, description: 'internal API port (health, metrics)' }),
  INBOUND_SMTP_HOST: Type.String({
    default: '127.0.0.1',
    description: 'the address the MX listens on: 0.0.0.0 in production, where it is the return-path domains’ MX',
  }),
  INBOUND_SMTP_PORT: Type.Integer({ minimum: 0, maximum: 65535, default: 2525, description: 'the MX’s SMTP port (25 in production)' }),
  INBOUND_HOSTNAME: Type.String({
    default: 'localhost',
    pattern: '^[A-Za-z0-9.-]+$',
    description: 'the name the MX greets with: INBOUND_MX_HOST, the host the return-path domains’ MX records point at',
  }),
  INBOUND_MAX_MESSAGE_BYTES: Type.Integer({
    minimum: 1024,
    default: 26_214_400,
    description: 'the largest mail the MX takes (SIZE); only the first 256 KiB of each is kept, where reports put what they say',
  }),
  INBOUND_MAX_CONNECTIONS: Type.Integer({
    minimum: 1,
    default: 200,
    description: 'connections the MX holds open at once, from everywhere; more get 421',
  }),
  INBOUND_CONNECTIONS_PER_NETWORK: Type.Integer({
    minimum: 1,
    default: 10,
    description: 'connections open at once from one network (an IPv4 /24, an IPv6 /64); more get 421',
  }),
  INBOUND_CONNECTIONS_PER_MINUTE: Type.Integer({
    minimum: 1,
    default: 120,
    description: 'connections one network (an IPv4 /24, an IPv6 /64) may open per minute; more get 421',
  }),
  INBOUND_COMMANDS_PER_CONNECTION: Type.Integer({
    minimum: 10,
    default: 200,
    description: 'SMTP commands on one connection; past them it is closed with 421',
  }),
  INBOUND_TRANSACTIONS_PER_CONNECTION: Type.Integer({
    minimum: 1,
    default: 20,
    description: 'mails (MAIL FROM) on one connection; past them it is closed with 421',
  }),
  INBOUND_RECIPIENTS_PER_TRANSACTION: Type.Integer({
    minimum: 1,
    default: 50,
    description: 'recipients of one mail; more get 452',
  }),
  INBOUND_CONNECTION_LIFETIME_MS: Type.Integer({
    minimum: 1000,
    default: 300_000,
    description: 'how long one connection may stay open, however busy; then it is closed with 421',
  }),
  INBOUND_RECORD_RETENTION_DAYS: Type.Integer({
    minimum: 1,
    default: 30,
    description: 'how long the record of each received mail (its verdict, never the mail) is kept',
  }),
  INBOUND_PARSE_BUDGET_MS: Type.Integer({
    minimum: 10,
    default: 2000,
    description:
      'how long reading one received mail may take on its worker thread (from its start there, not its wait for one); past it the thread is ended and the mail recorded as unreadable and dropped',
  }),
  INBOUND_PARSE_THREADS: Type.Integer({
    minimum: 1,
    maximum: 16,
    default: 1,
    description:
      'worker threads that read received mail, off the event loop of the MX and the consumer (one kept ready, the others started when needed)',
  }),
  INBOUND_TLS_KEY_FILE: Type.String({
    default: '',
    description: 'PEM private key for STARTTLS; with INBOUND_TLS_CERT_FILE, STARTTLS is offered',
  }),
  INBOUND_TLS_CERT_FILE: Type.String({ default: '', description: 'PEM certificate chain for STARTTLS' }),
  INBOUND_DB_NAME: Type.String({
    default: 'postbus_inbound',
    pattern: '^[A-Za-z0-9_-]+$',
    description: "the inbound service's own database",
  }),
  TRACKING_SECRET: Type.String({
    default: '',
    [RequiredInProduction]: true,
    pattern: '^(|.{32,})$',
    description: "the mailer's: return-path and mailto unsubscribe addresses are signed with a key derived from it",
  }),
});

export type InboundConfig = typeof InboundConfig.static;
