import { fork, spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { portOpen, repoRoot, startService, waitFor, type SmtpSink } from '@postbus/testing';
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

/**
 * BENCH_PROFILE: the processes named there (comma-separated) get V8's sampling profiler, writing
 * `<name>.cpuprofile` to .data/profiles/<run>/ as they exit. Answers the environment to start `name` with.
 */
export function profilerFor(runId: string): (name: string, env: Record<string, string>) => Record<string, string> {
  const profiled = new Set((process.env['BENCH_PROFILE'] ?? '').split(',').filter(Boolean));
  const dir = join(repoRoot, '.data', 'profiles', runId);
  if (profiled.size > 0) mkdirSync(dir, { recursive: true });
  return (name, env) =>
    profiled.has(name)
      ? {
          ...env,
          NODE_OPTIONS: `${process.env['NODE_OPTIONS'] ?? ''} --require ${join(__dirname, 'profile-preload.js')}`.trim(),
          BENCH_PROFILE_FILE: join(dir, `${name}.cpuprofile`),
        }
      : env;
}

/** The SMTP sink as a Child of a benchmark, for the CPU figures and the stop at the end. */
export const sinkChild = (sink: SmtpSink): Child => ({
  name: 'smtp-sink',
  url: sink.httpUrl,
  pid: sink.process.child.pid,
  log: join(logDir, 'smtp-sink.log'),
  exited: new Promise((resolve) => sink.process.child.once('exit', (code, signal) => resolve(`exited with ${code ?? signal}`))),
  stop: () => sink.process.stop(),
});

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

/** A bench/dist script forked with an IPC channel: the messages it sends, one at a time. */
export interface ForkedChild<M> {
  readonly child: ChildProcess;
  /** The next message; throws when the child reports an error, exits, or the run is aborted. */
  next: () => Promise<M>;
  /** Waits for the child to exit (SIGKILL after 10 s) and stops listening for the abort. */
  close: () => Promise<void>;
}

/** Forks bench/dist/<script> logging to .data/logs/<logName>.log; an abort kills it. */
export function forkChild<M extends { type: string; message?: string }>(
  script: string,
  args: string[],
  logName: string,
  signal: AbortSignal,
  env: Record<string, string> = {},
): ForkedChild<M> {
  mkdirSync(logDir, { recursive: true });
  const log = createWriteStream(join(logDir, `${logName}.log`), { flags: 'a' });
  const child = fork(join(__dirname, script), args, { stdio: ['ignore', 'pipe', 'pipe', 'ipc'], env: { ...process.env, ...env } });
  child.stdout?.pipe(log);
  child.stderr?.pipe(log);
  const inbox: M[] = [];
  let wake: (() => void) | undefined;
  let exit: string | undefined;
  child.on('message', (message: M) => {
    inbox.push(message);
    wake?.();
  });
  child.once('exit', (code, sig) => {
    exit = `exited with ${code ?? sig}`;
    wake?.();
  });
  const onAbort = () => child.kill('SIGKILL');
  signal.addEventListener('abort', onAbort, { once: true });
  return {
    child,
    next: async () => {
      for (;;) {
        const message = inbox.shift();
        if (message) {
          if (message.type === 'error') throw new Error(`${script}: ${message.message ?? 'error'}`);
          return message;
        }
        if (exit) throw new Error(`${script} ${exit} (see .data/logs/${logName}.log)`);
        signal.throwIfAborted();
        await new Promise<void>((resolve) => (wake = resolve));
      }
    },
    close: async () => {
      signal.removeEventListener('abort', onAbort);
      if (exit) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    },
  };
}
