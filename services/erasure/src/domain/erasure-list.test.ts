import { boundaryOf, isListBoundary, isPast, mergePage, newestFirst, type ListBoundary, type ListedKey } from './erasure-list';

const at = (minute: number, ms = 0) => new Date(Date.UTC(2026, 0, 1, 0, minute, 0, ms));
const entry = (value: string, minute: number, ms = 0): ListedKey => ({ at: at(minute, ms), value });

describe('the merged erasure list', () => {
  it('is newest recorded first; of one millisecond, the greater id first (by code unit, not locale)', () => {
    const sorted = [entry('era_a', 1), entry('era_b', 3), entry('era_B', 3), entry('era_c', 2)].sort(newestFirst);
    expect(sorted.map((e) => e.value)).toEqual(['era_b', 'era_B', 'era_c', 'era_a']);
  });

  it('goes on past a boundary: older erasures, and those of its millisecond with a smaller id', () => {
    const boundary: ListBoundary = [at(2).getTime(), 'era_m'];
    expect(isPast(entry('era_z', 1), boundary)).toBe(true);
    expect(isPast(entry('era_a', 2), boundary)).toBe(true);
    expect(isPast(entry('era_m', 2), boundary)).toBe(false);
    expect(isPast(entry('era_n', 2), boundary)).toBe(false);
    expect(isPast(entry('era_a', 3), boundary)).toBe(false);
    expect(isPast(entry('era_a', 3), undefined)).toBe(true);
  });

  it('merges the projects newest first, past the boundary, `limit` at most', () => {
    const a = [entry('era_a3', 6), entry('era_a2', 4), entry('era_a1', 0)];
    const b = [entry('era_b2', 5), entry('era_b1', 1)];
    expect(mergePage([a, b], 3).map((e) => e.value)).toEqual(['era_a3', 'era_b2', 'era_a2']);
    expect(mergePage([a, b], 3, boundaryOf(entry('era_a2', 4))).map((e) => e.value)).toEqual(['era_b1', 'era_a1']);
    expect(mergePage([[], []], 3)).toEqual([]);
  });

  it('pages through every erasure once, with ties in time across projects', () => {
    const projects = Array.from({ length: 5 }, (_, p) =>
      Array.from({ length: 4 }, (_, n) => entry(`era_${p}${n}`, 10 - n, p % 2)).sort(newestFirst),
    );
    const seen: string[] = [];
    let boundary: ListBoundary | undefined;
    for (;;) {
      const page = mergePage(projects, 3, boundary);
      seen.push(...page.map((e) => e.value));
      if (page.length < 3) break;
      boundary = boundaryOf(page[page.length - 1]!);
    }
    expect(seen).toHaveLength(20);
    expect(new Set(seen).size).toBe(20);
    expect(seen).toEqual(
      projects
        .flat()
        .sort(newestFirst)
        .map((e) => e.value),
    );
  });

  it('a boundary is short whatever the number of projects, and a cursor holding anything else is refused', () => {
    const boundary = boundaryOf(entry(`era_${'f'.repeat(32)}`, 1));
    expect(isListBoundary(boundary)).toBe(true);
    expect(JSON.stringify(boundary).length).toBeLessThan(64);
    for (const other of [
      { 'proj-a': 3 },
      [1],
      [1, 'era_a', 3],
      [-1, 'era_a'],
      [1.5, 'era_a'],
      ['1', 'era_a'],
      [1, ''],
      [1, 'x'.repeat(65)],
      null,
      'era_a',
    ])
      expect(isListBoundary(other)).toBe(false);
  });
});
