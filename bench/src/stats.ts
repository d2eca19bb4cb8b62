/** Latency figures in milliseconds: nearest-rank percentiles of what was measured, nothing corrected. */
export interface Latency {
  count: number;
  mean: number;
  p50: number;
  p90: number;
  p95: number;
  p99: number;
  max: number;
}

const round = (value: number, digits = 1) => Math.round(value * 10 ** digits) / 10 ** digits;

export function latencyOf(samples: readonly number[]): Latency {
  if (samples.length === 0) return { count: 0, mean: 0, p50: 0, p90: 0, p95: 0, p99: 0, max: 0 };
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (p: number) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))]!;
  return {
    count: sorted.length,
    mean: round(sorted.reduce((a, b) => a + b, 0) / sorted.length),
    p50: round(at(0.5)),
    p90: round(at(0.9)),
    p95: round(at(0.95)),
    p99: round(at(0.99)),
    max: round(sorted[sorted.length - 1]!),
  };
}

/** `count` per second over `ms` milliseconds, to one decimal. */
export const perSecond = (count: number, ms: number): number => (ms > 0 ? round((count * 1000) / ms) : 0);

/** `count` of the values, spread evenly over them. */
export const spread = <T>(values: readonly T[], count: number): T[] =>
  values.length <= count ? [...values] : Array.from({ length: count }, (_, i) => values[Math.floor((i * values.length) / count)]!);
