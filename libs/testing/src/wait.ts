import { randomUUID } from 'node:crypto';
import { testRunToken } from './test-run';

/** A short unique name for topics, groups and databases of one test file, with its run's token (see test-run.ts). */
export const uniqueName = (prefix: string): string => `${prefix}-${testRunToken()}-${randomUUID().slice(0, 8)}`;

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** Polls until check() returns something other than undefined/false, or fails with the last reason. */
export async function waitFor<T>(
  check: () => Promise<T | undefined | false> | T | undefined | false,
  { timeoutMs = 10_000, intervalMs = 100, what = 'condition' } = {},
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const value = await check();
      if (value !== undefined && value !== false) return value;
    } catch (error) {
      lastError = error;
    }
    if (Date.now() > deadline) {
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${lastError ? `: ${(lastError as Error).message}` : ''}`);
    }
    await sleep(intervalMs);
  }
}
