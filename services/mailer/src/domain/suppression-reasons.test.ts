import { accumulated, isLiftable, strongest, suppressionView } from './suppression-reasons';

const at = (minute: number) => new Date(Date.UTC(2026, 0, 1, 9, minute));

describe('suppression reasons', () => {
  it('a complaint is the strongest reason, then a hard bounce, soft bounces, the client’s own word, and an unsubscribe', () => {
    const reasons = ['unsubscribed', 'manual', 'soft_bounce_limit', 'hard_bounce', 'complaint'];
    for (let i = 0; i < reasons.length; i++)
      expect(strongest(reasons.slice(0, i + 1).map((reason) => ({ reason })))?.reason).toBe(reasons[i]);
    expect(strongest([{ reason: 'complaint' }, { reason: 'manual' }])?.reason).toBe('complaint');
    expect(strongest([])).toBeUndefined();
  });

  it('only a complaint may not be lifted by the client', () => {
    expect(['hard_bounce', 'soft_bounce_limit', 'manual', 'unsubscribed'].every(isLiftable)).toBe(true);
    expect(isLiftable('complaint')).toBe(false);
  });

  it('keeps every reason once, the first of each kind, oldest first', () => {
    expect(
      accumulated([
        { reason: 'complaint', at: at(5), messageId: 'msg_late' },
        { reason: 'manual', at: at(1) },
        { reason: 'complaint', at: at(3), messageId: 'msg_first' },
      ]),
    ).toEqual([
      { reason: 'manual', at: at(1) },
      { reason: 'complaint', at: at(3), messageId: 'msg_first' },
    ]);
  });

  it('shows an address with every reason, the strongest and its message, since its first reason', () => {
    expect(
      suppressionView('ada@example.org', [
        { reason: 'hard_bounce', at: at(2), messageId: 'msg_bounced' },
        { reason: 'manual', at: at(1) },
        { reason: 'complaint', at: at(3), messageId: 'msg_complained' },
      ]),
    ).toEqual({
      email: 'ada@example.org',
      reason: 'complaint',
      created_at: at(1).toISOString(),
      message_id: 'msg_complained',
      reasons: [
        { reason: 'manual', created_at: at(1).toISOString(), message_id: null },
        { reason: 'hard_bounce', created_at: at(2).toISOString(), message_id: 'msg_bounced' },
        { reason: 'complaint', created_at: at(3).toISOString(), message_id: 'msg_complained' },
      ],
    });
  });

  it('a suppression stored with one reason is shown as it always was, with a list of one', () => {
    expect(suppressionView('ada@example.org', [{ reason: 'hard_bounce', at: at(2), messageId: 'msg_b' }])).toEqual({
      email: 'ada@example.org',
      reason: 'hard_bounce',
      created_at: at(2).toISOString(),
      message_id: 'msg_b',
      reasons: [{ reason: 'hard_bounce', created_at: at(2).toISOString(), message_id: 'msg_b' }],
    });
    expect(suppressionView('ada@example.org', [])).toBeNull();
  });
});
