import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, mkdirSync, openSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { dataDir, repoRoot } from './infra';
import { waitFor } from './wait';

/**
 * Ports handed out below Linux's ephemeral range (32768–60999): a port from that range, free when
 * asked, is soon taken by some outgoing connection (Kafka clients open many) before the service
 * that was to listen on it starts — seen as EADDRINUSE in e2e runs.
 * Each jest worker (JEST_WORKER_ID) draws from a slice of its own, so that two test files running
 * at once never pick the same free port in the moment before one of them listens on it.
 */
const PORT_RANGE = { from: 20_000, to: 32_000 };
const PORT_SLICES = 8;

/** The ports a jest worker (JEST_WORKER_ID) draws from; a process outside jest (no id) has the slice of worker 0, which jest never numbers. */
export function portSlice(workerId: string | undefined): { from: number; to: number } {
  const size = Math.floor((PORT_RANGE.to - PORT_RANGE.from) / PORT_SLICES);
  const slice = (Number(workerId) || 0) % PORT_SLICES;
  return { from: PORT_RANGE.from + slice * size, to: PORT_RANGE.from + (slice + 1) * size };
}

const handedOut = new Set<number>();

const canListen = (port: number): Promise<boolean> =>
  new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, () => server.close(() => resolve(true)));
  });

/** A port nothing listens on, not handed out before by this process, from this process's slice. */
export async function freePort(): Promise<number> {
  const { from, to } = portSlice(process.env['JEST_WORKER_ID']);
  for (let tries = 0; tries < 200; tries++) {
    const port = from + Math.floor(Math.random() * (to - from));
    if (handedOut.has(port) || !(await canListen(port))) continue;
    handedOut.add(port);
    return port;
  }
  throw new Error(`no free port between ${from} and ${to}`);
}

export interface ServiceProcess {
  readonly name: string;
  readonly url: string;
  readonly child: ChildProcess;
  /** SIGKILL: the process dies without any cleanup, like a crashed container. */
  kill(): Promise<void>;
  /** SIGTERM and wait: the graceful path. */
  stop(): Promise<void>;
}

function exited(child: ChildProcess): Promise<void> {
  return child.exitCode !== null || child.signalCode !== null ? Promise.resolve() : new Promise((r) => child.once('exit', () => r()));
}

/**
 * Starts services/<name>/dist/main.js (run `npm run build` first) with the given environment,
 * logging to .data/logs/<logName>.log, and waits until its /readyz answers 200.
 */
export async function startService(name: string, port: number, env: Record<string, string>, logName = name): Promise<ServiceProcess> {
  const logDir = join(dataDir(), 'logs');
  mkdirSync(logDir, { recursive: true });
  // The service writes its log file itself: nothing of it depends on this process staying alive
  // (when this one is killed, the service notices through STOP_WITH_PARENT and stops gracefully).
  const log = openSync(join(logDir, `${logName}.log`), 'a');
  const child = spawn(process.execPath, [join(repoRoot, 'services', name, 'dist', 'main.js')], {
    env: { ...process.env, STOP_WITH_PARENT: 'true', ...env, PORT: String(port) },
    stdio: ['ignore', log, log],
  });
  closeSync(log);
  const url = `http://127.0.0.1:${port}`;
  const died = new Promise<never>((_, reject) =>
    child.once('exit', (code, signal) =>
      reject(new Error(`${name} exited with ${code ?? signal} during start-up (see ${join(logDir, `${logName}.log`)})`)),
    ),
  );
  died.catch(() => undefined); // only of interest while starting
  const ready = waitFor(
    async () => {
      const res = await fetch(`${url}/readyz`).catch(() => undefined);
      return res?.status === 200;
    },
    { timeoutMs: 60_000, intervalMs: 200, what: `${name} to be ready` },
  );
  // A process that dies while starting fails at once, not when the readiness wait runs out.
  ready.catch(() => undefined); // when the process died first, nobody waits for this any more
  await Promise.race([ready, died]).catch((error: unknown) => {
    child.kill('SIGKILL');
    throw error;
  });
  return {
    name,
    url,
    child,
    async kill() {
      child.kill('SIGKILL');
      await exited(child);
    },
    async stop() {
      child.kill('SIGTERM');
      await exited(child);
    },
  };
}
