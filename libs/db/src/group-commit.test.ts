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
});
