import { ConflictError, NotFoundError } from '@postbus/errors';
import { unsuppressCommand } from './suppression-lifts';

const at = new Date('2026-01-01T00:00:00.000Z');

describe('lifting a suppression', () => {
  it('lifts a manual suppression or a bounce as it is', () => {
    expect(unsuppressCommand('p1', 'ann@example.com', { reason: 'manual' }, at)).toEqual({
      projectId: 'p1',
      email: 'ann@example.com',
      acceptedAt: '2026-01-01T00:00:00.000Z',
    });
    expect(unsuppressCommand('p1', 'ann@example.com', { reason: 'hard_bounce' }, at)).not.toHaveProperty('resubscribe');
  });

  it('lifting an unsubscribe subscribes the user again', () => {
    expect(unsuppressCommand('p1', 'ann@example.com', { reason: 'unsubscribed' }, at).resubscribe).toBe(true);
  });

  it('a complaint stays, and an address not suppressed is not found', () => {
    expect(() => unsuppressCommand('p1', 'ann@example.com', { reason: 'complaint' }, at)).toThrow(ConflictError);
    expect(() => unsuppressCommand('p1', 'ann@example.com', undefined, at)).toThrow(NotFoundError);
  });
});
