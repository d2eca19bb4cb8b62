import { AsyncLocalStorage } from 'node:async_hooks';

/** What every log line written while handling one request or message carries. */
export interface LogContext {
  requestId?: string;
  [key: string]: unknown;
}

const storage = new AsyncLocalStorage<LogContext>();

/** Runs fn with a context that every log line written inside it (even asynchronously) carries. */
export function withLogContext<T>(context: LogContext, fn: () => T): T {
  return storage.run({ ...storage.getStore(), ...context }, fn);
}

export function currentLogContext(): LogContext | undefined {
  return storage.getStore();
}
