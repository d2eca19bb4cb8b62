import { sleep } from '@postbus/testing';

/** The p-th quantile (0..1) of some latencies, nearest rank. */
export function quantile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))] ?? NaN;
}

export const summary = (values: number[]) =>
  `p50 ${quantile(values, 0.5).toFixed(0)} ms, p99 ${quantile(values, 0.99).toFixed(0)} ms, max ${Math.max(...values).toFixed(0)} ms (${values.length})`;

/** Asks `url` one request after another, every `everyMs`, until stop(): each answer's latency (Infinity for no answer or not 2xx). */
export function probe(url: string, everyMs = 50): { stop(): Promise<number[]> } {
  const latencies: number[] = [];
  let running = true;
  const loop = (async () => {
    while (running) {
      const started = performance.now();
      try {
        const res = await fetch(url);
        await res.arrayBuffer();
        latencies.push(res.ok ? performance.now() - started : Infinity);
      } catch {
        latencies.push(Infinity); // no answer: worse than any bound
      }
      await sleep(everyMs);
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      return latencies;
    },
  };
}
