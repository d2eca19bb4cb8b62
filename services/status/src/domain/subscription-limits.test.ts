import { clientKey, TokenBuckets } from './subscription-limits';

describe('subscription rate buckets', () => {
  it('when a key has used its capacity, it is refused with the time until a token is back, which then is', () => {
    let now = 1_000_000;
    const buckets = new TokenBuckets(3, 60_000, () => now);
    expect([buckets.take('a'), buckets.take('a'), buckets.take('a')]).toEqual([0, 0, 0]);
    expect(buckets.take('a')).toBe(20_000); // 3 a minute: one every 20 s
    expect(buckets.take('b')).toBe(0); // another key has its own bucket
    now += 19_000;
    expect(buckets.take('a')).toBe(1_000);
    now += 1_000;
    expect(buckets.take('a')).toBe(0);
    expect(buckets.take('a')).toBeGreaterThan(0);
  });

  it('when the capacity is 0, nothing is limited', () => {
    const buckets = new TokenBuckets(0, 60_000);
    for (let i = 0; i < 100; i++) expect(buckets.take('a')).toBe(0);
  });

  it('when more keys than it keeps arrive, the keys touched longest ago are forgotten, not the recent ones', () => {
    const now = 0;
    const buckets = new TokenBuckets(1, 60_000, () => now, 10);
    expect(buckets.take('recent')).toBe(0);
    for (let i = 0; i < 8; i++) buckets.take(`other-${i}`);
    expect(buckets.take('recent')).toBeGreaterThan(0); // touched again: now the newest
    for (let i = 8; i < 12; i++) buckets.take(`other-${i}`);
    expect(buckets.take('recent')).toBeGreaterThan(0); // still counted
    expect(buckets.take('other-0')).toBe(0); // forgotten: a fresh bucket
  });
});

describe('the key a client address counts under', () => {
  it('is an IPv4 address itself, an IPv4-mapped one as IPv4, an IPv6 one by its /64', () => {
    expect(clientKey('203.0.113.7')).toBe('203.0.113.7');
    expect(clientKey('::ffff:203.0.113.7')).toBe('203.0.113.7');
    expect(clientKey('2001:db8:1:2:aaaa::1')).toBe('2001:db8:1:2::/64');
    expect(clientKey('2001:db8:1:2:bbbb:cccc:dddd:eeee')).toBe('2001:db8:1:2::/64');
    expect(clientKey('2001:db8:1:3::1')).toBe('2001:db8:1:3::/64');
    expect(clientKey(undefined)).toBe('unknown');
  });
});
