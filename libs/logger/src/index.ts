import winston from 'winston';
import { currentLogContext } from './context';
import { redact, safeString } from './redact';

export { withLogContext, currentLogContext, type LogContext } from './context';
export { maskEmails, MAX_LOGGED_STRING, redact, safeString } from './redact';

export type LogLevel = 'error' | 'warn' | 'info' | 'debug';
export type Logger = winston.Logger;

export interface LoggerOptions {
  service: string;
  level?: LogLevel;
  /** Where lines go; stdout by default. Tests pass a stream to read them. */
  stream?: NodeJS.WritableStream;
}

// Runs last, on the whole line, so nothing a caller passes (message, metadata, errors) escapes it.
const privacy = winston.format((info) => {
  const context = currentLogContext();
  const masked = redact({ ...context, ...info }) as winston.Logform.TransformableInfo;
  masked.message = safeString(String(info.message));
  return Object.assign(info, masked);
});

/**
 * A winston logger writing JSON lines with the service name, the current request id (from
 * withLogContext), email addresses masked and secret-looking fields redacted.
 */
export function createLogger({ service, level = 'info', stream }: LoggerOptions): Logger {
  return winston.createLogger({
    level,
    defaultMeta: { service },
    format: winston.format.combine(winston.format.timestamp(), winston.format.errors({ stack: true }), privacy(), winston.format.json()),
    transports: [stream ? new winston.transports.Stream({ stream }) : new winston.transports.Console()],
  });
}
