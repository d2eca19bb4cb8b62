/**
 * How the benchmarks read their options: BENCH_* variables of the environment (each benchmark's header
 * lists its own). Unset or empty, an option takes its default.
 */

/** A positive number from the environment, or the fallback when unset. */
export function envNumber(name: string, fallback: number, what = 'number'): number {
  const text = process.env[name];
  if (text === undefined || text === '') return fallback;
  const value = Number(text);
  if (!Number.isFinite(value) || value <= 0) throw new Error(`${name} must be a positive ${what}, not "${text}"`);
  return value;
}

/** A positive number from the environment, or undefined when unset (the benchmark then works one out). */
export const envOptionalNumber = (name: string, what = 'number'): number | undefined =>
  process.env[name] ? envNumber(name, 0, what) : undefined;

/** A count (of mails, triggers, connections…): a positive number from the environment, rounded. */
export const envCount = (name: string, fallback: number): number => Math.round(envNumber(name, fallback, 'integer'));

export const envSeconds = (name: string, fallback: number): number => envNumber(name, fallback, 'number of seconds');

/** A switch that is on only when set to 1 (BENCH_KEEP_DATA=1). */
export const envFlag = (name: string): boolean => process.env[name] === '1';
