import { readFileSync, readlinkSync } from 'node:fs';

/**
 * Per-thread CPU time, from Linux's /proc (Node 20 has no per-thread clock): limits are on the CPU
 * a template uses, so a busy machine that keeps a thread waiting does not fail a template for it.
 * Each read costs tens of microseconds: taken when a job starts and when its wall-clock deadline
 * passes, never on every render. Elsewhere (no /proc) every function answers undefined and the
 * limits fall back to wall-clock time.
 */

/** This thread's id in /proc, or undefined. */
export function threadId(): number | undefined {
  try {
    const link = readlinkSync('/proc/thread-self'); // "<pid>/task/<tid>"
    const tid = Number(link.slice(link.lastIndexOf('/') + 1));
    return Number.isInteger(tid) && tid > 0 ? tid : undefined;
  } catch {
    return undefined;
  }
}

/** CPU time (ms) a thread of this process has run so far: this thread's unless `tid` names another. */
export function threadCpuMs(tid?: number): number | undefined {
  try {
    // schedstat: "<ns on the CPU> <ns waiting for it> <timeslices>"
    const stat = readFileSync(tid === undefined ? '/proc/thread-self/schedstat' : `/proc/self/task/${tid}/schedstat`, 'latin1');
    const ns = Number(stat.slice(0, stat.indexOf(' ')));
    return Number.isFinite(ns) ? ns / 1e6 : undefined;
  } catch {
    return undefined;
  }
}

/**
 * How long `job` held this thread's event loop: between two ticks of a 5 ms timer, the most CPU
 * this thread used (what a synchronous stretch of JavaScript costs, whatever else the machine runs),
 * and the longest gap by the wall clock (which a loaded machine stretches too).
 */
export async function loopHeld<T>(job: () => Promise<T>): Promise<{ cpuMs: number; wallMs: number; result: PromiseSettledResult<T> }> {
  let cpuMs = 0;
  let wallMs = 0;
  let last = { at: performance.now(), cpu: threadCpuMs() ?? 0 };
  const tick = () => {
    const now = { at: performance.now(), cpu: threadCpuMs() ?? 0 };
    cpuMs = Math.max(cpuMs, now.cpu - last.cpu);
    wallMs = Math.max(wallMs, now.at - last.at - 5);
    last = now;
  };
  const timer = setInterval(tick, 5);
  const [result] = await Promise.allSettled([job()]);
  clearInterval(timer);
  tick();
  return { cpuMs, wallMs, result };
}
