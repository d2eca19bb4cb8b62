import type { Static, TObject } from '@sinclair/typebox';
import { loadConfig } from '@postbus/config';
import { createLogger, type Logger, type LogLevel } from '@postbus/logger';
import { exitOnFatal, onShutdown, stopWithParent } from './server';

export interface RunningService {
  stop(): Promise<void>;
}

/**
 * The whole of a service's main.ts: reads and validates its configuration once, makes its
 * logger, starts it, and stops it gracefully on SIGTERM/SIGINT. A configuration error ends the
 * process with the message naming every bad variable, and no stack trace.
 */
export function runService<T extends TObject>(
  service: string,
  schema: T,
  start: (deps: { config: Readonly<Static<T>>; logger: Logger }) => Promise<RunningService>,
): void {
  const main = async () => {
    const config = loadConfig(schema);
    const level = (config as { LOG_LEVEL?: LogLevel }).LOG_LEVEL ?? 'info';
    const logger = createLogger({ service, level });
    exitOnFatal(logger);
    const running = await start({ config, logger });
    onShutdown(['SIGTERM', 'SIGINT'], () => running.stop(), logger);
    if ((config as { STOP_WITH_PARENT?: boolean }).STOP_WITH_PARENT) stopWithParent(logger);
  };
  main().catch((error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  });
}
