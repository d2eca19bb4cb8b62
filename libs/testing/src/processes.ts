import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, mkdirSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { repoRoot } from './infra';
import { waitFor } from './wait';

/** A port nobody listens on right now. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
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
  const logDir = join(repoRoot, '.data', 'logs');
  mkdirSync(logDir, { recursive: true });
  const log = createWriteStream(join(logDir, `${logName}.log`), { flags: 'a' });
  const child = spawn(process.execPath, [join(repoRoot, 'services', name, 'dist', 'main.js')], {
    env: { ...process.env, ...env, PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout?.pipe(log);
  child.stderr?.pipe(log);
  const url = `http://127.0.0.1:${port}`;
  const died = new Promise<never>((_, reject) =>
    child.once('exit', (code, signal) =>
      reject(new Error(`${name} exited with ${code ?? signal} during start-up (see .data/logs/${logName}.log)`)),
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
