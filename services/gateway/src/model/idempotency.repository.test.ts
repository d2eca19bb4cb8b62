import { createHash } from 'node:crypto';
import { idempotencyIdOf } from './idempotency.repository';

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

describe('the id of an Idempotency-Key’s records', () => {
  it('for a live key (full or sdk) is the id records had before test keys got their own, so those still replay', () => {
    expect(idempotencyIdOf({ clientId: 'cl_1', test: false }, 'order-1')).toBe(sha256('cl_1\norder-1'));
  });

  it('for a test key is another, so a live send never gets a test send’s answer', () => {
    const testId = idempotencyIdOf({ clientId: 'cl_1', test: true }, 'order-1');
    expect(testId).toMatch(/^[0-9a-f]{64}$/);
    expect(testId).not.toBe(idempotencyIdOf({ clientId: 'cl_1', test: false }, 'order-1'));
  });
});
