import type { Suppression, SuppressionReason } from '@postbus/contracts';
import { ConflictError, NotFoundError } from '@postbus/errors';
import { unsuppressCommand } from './suppression-lifts';

const at = new Date('2026-01-01T00:00:00.000Z');

/** A suppression with these reasons, oldest first; the strongest shown as `reason`. */
const withReasons = (shown: SuppressionReason, ...reasons: SuppressionReason[]): Pick<Suppression, 'reason' | 'reasons'> => ({
  reason: shown,
  reasons: (reasons.length > 0 ? reasons : [shown]).map((reason, i) => ({
    reason,
    created_at: new Date(at.getTime() + i * 60_000).toISOString(),
    message_id: null,
  })),
});

describe('lifting a suppression', () => {
  it('lifts a manual suppression or a bounce as it is', () => {
    expect(unsuppressCommand('p1', 'ann@example.com', withReasons('manual'), at)).toEqual({
      projectId: 'p1',
      email: 'ann@example.com',
      acceptedAt: '2026-01-01T00:00:00.000Z',
    });
    expect(unsuppressCommand('p1', 'ann@example.com', withReasons('hard_bounce', 'manual', 'hard_bounce'), at)).not.toHaveProperty(
      'resubscribe',
    );
  });

  it('lifting an unsubscribe subscribes the user again', () => {
    expect(unsuppressCommand('p1', 'ann@example.com', withReasons('unsubscribed'), at).resubscribe).toBe(true);
  });

  it('lifting a block leaves the unsubscribe beside it, and the user unsubscribed', () => {
    expect(unsuppressCommand('p1', 'ann@example.com', withReasons('manual', 'unsubscribed', 'manual'), at)).not.toHaveProperty(
      'resubscribe',
    );
  });

  it('a complaint stays, and an address not suppressed is not found', () => {
    expect(() => unsuppressCommand('p1', 'ann@example.com', withReasons('complaint'), at)).toThrow(ConflictError);
    expect(() => unsuppressCommand('p1', 'ann@example.com', undefined, at)).toThrow(NotFoundError);
  });

  it('a complaint that came after a manual suppression or a bounce stays too (409), whichever reason came first', () => {
    for (const first of ['manual', 'hard_bounce', 'soft_bounce_limit', 'unsubscribed'] as const) {
      expect(() => unsuppressCommand('p1', 'ann@example.com', withReasons('complaint', first, 'complaint'), at)).toThrow(ConflictError);
      // Even as a reason not shown first: the complaint among the reasons is enough.
      expect(() => unsuppressCommand('p1', 'ann@example.com', withReasons(first, first, 'complaint'), at)).toThrow(ConflictError);
    }
  });
});
