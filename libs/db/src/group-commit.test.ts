import { GroupCommit } from './index';

describe('GroupCommit', () => {
  it('13.5 a group with one failing item rejects that item only, and resolves the others with their results', async () => {
    const runs: number[][] = [];
    const group = new GroupCommit<number, number>(async (items) => {
      runs.push(items);
      await Promise.resolve();
      if (items.includes(13)) throw new Error('refused: 13');
      return items.map((i) => i * 2);
    });
    const outcomes = await Promise.allSettled([1, 2, 13, 4, 5, 6, 7, 8].map((i) => group.add(i)));
    expect(outcomes.map((o) => (o.status === 'fulfilled' ? o.value : (o.reason as Error).message))).toEqual([
      2,
      4,
      'refused: 13',
      8,
      10,
      12,
      14,
      16,
    ]);
    // Bisected rather than retried one by one: a handful of runs for eight items.
    expect(runs.length).toBeLessThanOrEqual(8);
  });

  it('commits a first item at once, and gathers what comes while it is in flight', async () => {
    const runs: number[][] = [];
    const group = new GroupCommit<number>(async (items) => {
      runs.push(items);
      await new Promise((resolve) => setTimeout(resolve, 5));
    });
    await Promise.all([1, 2, 3].map((i) => group.add(i)));
    expect(runs).toEqual([[1], [2, 3]]);
  });

  it('with a linger, lets a first item wait for the items of the next milliseconds and commits them as one', async () => {
    const runs: number[][] = [];
    const group = new GroupCommit<number>(
      (items) => {
        runs.push(items);
        return Promise.resolve();
      },
      1_000,
      20,
    );
    const started = performance.now();
    const first = group.add(1);
    await new Promise((resolve) => setTimeout(resolve, 5));
    await Promise.all([first, group.add(2), group.add(3)]);
    expect(runs).toEqual([[1, 2, 3]]);
    expect(performance.now() - started).toBeGreaterThanOrEqual(19);
    // Once committed, the next item waits for a group of its own.
    await group.add(4);
    expect(runs).toEqual([[1, 2, 3], [4]]);
  });
});
