import { ConnectionBudget, isSmtpReply, networkOf, smtpReply } from './connection-limits';

describe('networkOf', () => {
  it('counts an IPv4 /24 and an IPv6 /64 as one network', () => {
    expect(networkOf('192.0.2.17')).toBe('192.0.2.0/24');
    expect(networkOf('::ffff:192.0.2.200')).toBe('192.0.2.0/24');
    expect(networkOf('2001:db8:0:1:aaaa::1')).toBe('2001:db8:0:1::/64');
    expect(networkOf('2001:db8::1')).toBe('2001:db8:0:0::/64');
    expect(networkOf('2001:0db8:0000:0001:1:2:3:4')).toBe('2001:db8:0:1::/64');
    expect(networkOf('::1')).toBe('0:0:0:0::/64');
  });
});

describe('ConnectionBudget', () => {
  it('lets a network open its connections per minute, and again in the next minute', () => {
    let now = 60_000 * 100;
    const budget = new ConnectionBudget(2, () => now);
    expect([budget.take('a'), budget.take('a'), budget.take('a'), budget.take('b')]).toEqual([true, true, false, true]);
    now += 60_000;
    expect(budget.take('a')).toBe(true);
  });
});

describe('smtpReply', () => {
  it('is an error whose code smtp-server replies with', () => {
    const reply = smtpReply(451, '4.3.0 Try again later');
    expect(reply).toMatchObject({ responseCode: 451, message: '4.3.0 Try again later' });
    expect(isSmtpReply(reply)).toBe(true);
    expect(isSmtpReply(new Error('plain'))).toBe(false);
  });
});
