import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { portOpen, repoRoot, startService, waitFor } from '@postbus/testing';
import type { Baseline } from './baselines';

/** A process the benchmark started and must stop. */
export interface Child {
  readonly name: string;
  readonly url: string;
  readonly pid: number | undefined;
  /** Where its output goes. */
  readonly log: string;
  /** Resolves when the process has exited, however that happened, with how it did. */
  readonly exited: Promise<string>;
  /** SIGTERM, then SIGKILL if it has not exited within the grace period. */
  stop(): Promise<void>;
}

const STOP_GRACE_MS = 15_000;
const logDir = join(repoRoot, '.data', 'logs');

async function stopWithin(name: string, graceful: () => Promise<void>, force: () => Promise<void>): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), STOP_GRACE_MS)));
  const outcome = await Promise.race([graceful().then(() => 'stopped' as const), timedOut]);
  clearTimeout(timer);
  if (outcome === 'timeout') {
    console.warn(`  ! ${name} did not stop within ${STOP_GRACE_MS / 1000} s; killing it`);
    await force();
  }
}

const exitOf = (child: ChildProcess): Promise<string> =>
  child.exitCode !== null || child.signalCode !== null
    ? Promise.resolve(`exited with ${child.exitCode ?? child.signalCode}`)
    : new Promise((resolve) => child.once('exit', (code, signal) => resolve(`exited with ${code ?? signal}`)));

/** services/<name>/dist/main.js, ready when its /readyz answers 200; logs to .data/logs/<logName>.log. */
export async function startPostbusService(name: string, port: number, env: Record<string, string>, logName: string): Promise<Child> {
  const service = await startService(name, port, env, logName);
  return {
    name,
    url: service.url,
    pid: service.child.pid,
    log: join(logDir, `${logName}.log`),
    exited: exitOf(service.child),
    stop: () =>
      stopWithin(
        name,
        () => service.stop(),
        () => service.kill(),
      ),
  };
}

/** bench/dist/baselines.js <kind> <port>, ready when the port accepts connections. */
export async function startBaseline(kind: Baseline, port: number, logName: string): Promise<Child> {
  mkdirSync(logDir, { recursive: true });
  const log = createWriteStream(join(logDir, `${logName}.log`), { flags: 'a' });
  const child = spawn(process.execPath, [join(__dirname, 'baselines.js'), kind, String(port)], { stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout.pipe(log);
  child.stderr.pipe(log);
  const kill = async () => {
    child.kill('SIGKILL');
    await exitOf(child);
  };
  const died = new Promise<never>((_, reject) =>
    child.once('exit', (code, signal) =>
      reject(new Error(`${kind} baseline exited with ${code ?? signal} during start-up (see .data/logs/${logName}.log)`)),
    ),
  );
  died.catch(() => undefined); // only of interest while starting
  const listening = waitFor(() => portOpen('127.0.0.1', port, 200), {
    timeoutMs: 15_000,
    intervalMs: 100,
    what: `the ${kind} baseline to listen on ${port}`,
  });
  await Promise.race([listening, died]).catch(async (error: unknown) => {
    await kill();
    throw error;
  });
  return {
    name: `${kind}-baseline`,
    url: `http://127.0.0.1:${port}`,
    pid: child.pid,
    log: join(logDir, `${logName}.log`),
    exited: exitOf(child),
    stop: () =>
      stopWithin(
        `${kind}-baseline`,
        async () => {
          child.kill('SIGTERM');
          await exitOf(child);
        },
        kill,
      ),
  };
}
