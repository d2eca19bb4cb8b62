import { SubscriptionTokens } from './subscription-tokens';

describe('subscription link tokens', () => {
  const tokens = new SubscriptionTokens('a-test-secret-of-enough-length');

  it('name their subscriber for their purpose only, and a confirm token expires', () => {
    const now = new Date('2026-11-23T12:00:00Z');
    const confirm = tokens.issue('confirm', 'sub-1', 60_000, now);
    expect(tokens.verify(confirm, 'confirm', now)).toBe('sub-1');
    expect(tokens.verify(confirm, 'unsubscribe', now)).toBeUndefined();
    expect(tokens.verify(confirm, 'confirm', new Date(now.getTime() + 61_000))).toBeUndefined();
    const unsubscribe = tokens.issue('unsubscribe', 'sub-1', undefined, now);
    expect(tokens.verify(unsubscribe, 'unsubscribe', new Date('2036-01-01T00:00:00Z'))).toBe('sub-1');
  });

  it('refuse a forged or foreign token, and a short secret', () => {
    const other = new SubscriptionTokens('another-secret-of-enough-length');
    expect(tokens.verify(other.issue('unsubscribe', 'sub-1'), 'unsubscribe')).toBeUndefined();
    expect(tokens.verify('garbage', 'unsubscribe')).toBeUndefined();
    expect(() => new SubscriptionTokens('short')).toThrow(/at least 16/);
  });
});
