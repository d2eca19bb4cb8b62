import winston from 'winston';
import { redact, safeString } from './redact';

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
  const masked = redact({ ...info }) as winston.Logform.TransformableInfo;
  masked.message = safeString(String(info.message));
  return Object.assign(info, masked);
});

/**
 * A winston logger writing JSON lines with the service name, email addresses masked and
 * secret-looking fields redacted. A line about one request or message names its id itself, or comes
 * from a `logger.child({ requestId })`: no context travels implicitly (Node 20's AsyncLocalStorage
 * turns on promise hooks for every promise of the process once used, ~2-10% of a busy service).
 */
export function createLogger({ service, level = 'info', stream }: LoggerOptions): Logger {
  return winston.createLogger({
    level,
    defaultMeta: { service },
    format: winston.format.combine(winston.format.timestamp(), winston.format.errors({ stack: true }), privacy(), winston.format.json()),
    transports: [stream ? new winston.transports.Stream({ stream }) : new winston.transports.Console()],
  });
}
