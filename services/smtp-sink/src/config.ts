import { Type } from '@sinclair/typebox';
import { CommonConfig } from '@postbus/config';

const port = (fallback: number, description: string) => Type.Integer({ minimum: 0, maximum: 65535, default: fallback, description });

// Only the log level and parent watch of CommonConfig: the sink has no bus and no database.
export const SmtpSinkConfig = Type.Object({
  LOG_LEVEL: CommonConfig.LOG_LEVEL,
  STOP_WITH_PARENT: CommonConfig.STOP_WITH_PARENT,
  SMTP_HOST: Type.String({ minLength: 1, default: '127.0.0.1', description: 'address the SMTP server listens on' }),
  SMTP_PORT: port(1025, 'SMTP port (Mailpit uses 1025)'),
  HTTP_HOST: Type.String({ minLength: 1, default: '127.0.0.1', description: 'address the HTTP API listens on' }),
  PORT: port(8025, 'HTTP API port (Mailpit uses 8025)'),
  SINK_MAX_MESSAGES: Type.Integer({ minimum: 1, default: 50_000, description: 'messages kept in memory; the oldest are dropped beyond' }),
  SINK_MAX_MESSAGE_BYTES: Type.Integer({
    minimum: 1024,
    default: 25 * 1024 * 1024,
    description: 'largest message accepted (SMTP SIZE); larger ones get 552',
  }),
});

export type SmtpSinkConfig = typeof SmtpSinkConfig.static;
