import { createHmac } from 'node:crypto';
import { MarkerFilter } from './marker-filter';

const key = (project: string, n: number) => `${project}:${createHmac('sha256', 'k').update(`a${n}@example.org`).digest('base64url')}`;

describe('MarkerFilter', () => {
  it('holds every key it was given', () => {
    const filter = new MarkerFilter(10_000);
    const keys = Array.from({ length: 10_000 }, (_, n) => key('p1', n));
    for (const k of keys) filter.add(k);
    expect(keys.filter((k) => !filter.mayHold(k))).toEqual([]);
    expect(filter.size).toBe(10_000);
  });

  it('says "maybe" for about 1 % of the keys it was not given, at its capacity', () => {
    const filter = new MarkerFilter(10_000);
    for (let n = 0; n < 10_000; n++) filter.add(key('p1', n));
    const others = Array.from({ length: 20_000 }, (_, n) => key('p2', n));
    const maybe = others.filter((k) => filter.mayHold(k)).length;
    expect(maybe / others.length).toBeLessThan(0.02);
  });

  it('holds nothing when empty, and tells projects apart', () => {
    const filter = new MarkerFilter();
    expect(filter.mayHold(key('p1', 1))).toBe(false);
    filter.add(key('p1', 1));
    expect(filter.mayHold(key('p1', 1))).toBe(true);
    expect(filter.mayHold(key('p2', 1))).toBe(false);
  });
});
