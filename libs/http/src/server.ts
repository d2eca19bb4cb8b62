import type { Server } from 'node:http';
import type { Express } from 'express';
import type { Logger } from '@postbus/logger';

/** Listens on a host and port (0 picks a free one) and resolves with the server and the port it got. */
export function listen(app: Express, port: number, host: string): Promise<{ server: Server; port: number }> {
  return new Promise((resolve, reject) => {
    const server = app.listen(port, host, (error?: Error) => {
      if (error) return reject(error);
      const address = server.address();
      resolve({ server, port: typeof address === 'object' && address ? address.port : port });
    });
    server.keepAliveTimeout = 65_000;
  });
}

/** Stops accepting connections and closes idle ones; in-flight requests finish. */
export function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeIdleConnections();
  });
}

/**
 * Runs stop() once on the first of the signals, then exits; a second signal, or stop() taking
 * longer than the grace period, exits at once.
 */
export function onShutdown(signals: NodeJS.Signals[], stop: () => Promise<void>, logger: Logger, graceMs = 20_000): void {
  let stopping = false;
  for (const signal of signals) {
    process.on(signal, () => {
      if (stopping) process.exit(1);
      stopping = true;
      logger.info('shutting down', { signal });
      const timer = setTimeout(() => {
        logger.error('shutdown took too long, exiting');
        process.exit(1);
      }, graceMs);
      timer.unref();
      stop().then(
        () => process.exit(0),
        (error: unknown) => {
          logger.error('shutdown failed', { error });
          process.exit(1);
        },
      );
    });
  }
}

/**
 * Sends this process SIGTERM (the graceful path of onShutdown) once the process that started it is
 * gone, so services started by `npm start` do not outlive it when it is killed outright.
 */
export function stopWithParent(logger: Logger, intervalMs = 1000): void {
  const parent = process.ppid;
  const timer = setInterval(() => {
    try {
      process.kill(parent, 0);
    } catch {
      clearInterval(timer);
      logger.warn('the process that started this one is gone, stopping', { parent });
      process.kill(process.pid, 'SIGTERM');
    }
  }, intervalMs);
  timer.unref();
}

/** Logs an uncaught failure and exits, so the supervisor restarts a process in a known state. */
export function exitOnFatal(logger: Logger): void {
  const fatal = (error: unknown) => {
    logger.error('fatal error, exiting', { error });
    setTimeout(() => process.exit(1), 100).unref();
  };
  process.on('uncaughtException', fatal);
  process.on('unhandledRejection', fatal);
}
