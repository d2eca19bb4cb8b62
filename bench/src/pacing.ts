/**
 * An open loop: `total` calls of `fire`, the n-th when due at start + n / rate whatever the answers
 * to earlier ones; resolves with their results in order. `now` is the clock due times are read on
 * (epoch ms by default, to compare with other processes' timestamps).
 */
export async function paced<T>(
  rate: number,
  total: number,
  fire: (n: number, dueAt: number) => Promise<T>,
  { signal, now = Date.now }: { signal?: AbortSignal; now?: () => number } = {},
): Promise<T[]> {
  const pending: Array<Promise<T>> = [];
  const start = now();
  const dueOf = (n: number) => start + (n * 1000) / rate;
  await new Promise<void>((resolve) => {
    const tick = () => {
      const at = now();
      while (pending.length < total && dueOf(pending.length) <= at) pending.push(fire(pending.length, dueOf(pending.length)));
      if (pending.length >= total || signal?.aborted) return resolve();
      setTimeout(tick, Math.max(0, dueOf(pending.length) - now()));
    };
    tick();
  });
  return Promise.all(pending);
}
