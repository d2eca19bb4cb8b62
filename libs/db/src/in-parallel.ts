/** Point reads or deletes in flight at once for one call (many calls may run side by side). */
const PARALLEL = 16;

/**
 * Runs `work` over the items, a bounded number at a time; results in order. Pages and chunks of a
 * list are read and deleted by `_id` this way: side by side, without opening a connection each.
 */
export async function inParallel<T, R>(items: T[], work: (item: T) => Promise<R>, parallel = PARALLEL): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const i = next++;
      results[i] = await work(items[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(parallel, items.length) }, worker));
  return results;
}
