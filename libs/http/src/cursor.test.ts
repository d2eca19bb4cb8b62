import { decodeCursor, encodeCursor, isSequence, isSequenceMap } from './cursor';

const refusedWith422 = (run: () => unknown) => expect(run).toThrow(expect.objectContaining({ status: 422, slug: 'invalid-cursor' }));

describe('list cursors', () => {
  it('give back the position they were made with, for the same filters in any order', () => {
    const cursor = encodeCursor(42, { status: 'sent', email: 'a@example.com' });
    expect(cursor).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(decodeCursor(cursor, { email: 'a@example.com', status: 'sent', user_id: undefined }, isSequence)).toBe(42);
    expect(decodeCursor(encodeCursor({ p1: 3, p2: 9 }), {}, isSequenceMap)).toEqual({ p1: 3, p2: 9 });
  });

  it('are refused with a 422 when the filters changed, the position is not one, or the text is none of ours', () => {
    const cursor = encodeCursor(42, { status: 'sent' });
    refusedWith422(() => decodeCursor(cursor, { status: 'failed' }, isSequence));
    refusedWith422(() => decodeCursor(cursor, {}, isSequence));
    refusedWith422(() => decodeCursor(encodeCursor(0), {}, isSequence));
    refusedWith422(() => decodeCursor(encodeCursor({ p1: -1 }), {}, isSequenceMap));
    refusedWith422(() => decodeCursor('bm90LW91cnM', {}, isSequence));
    refusedWith422(() => decodeCursor(Buffer.from('2026-01-01T00:00:00.000Z|msg_1').toString('base64url'), {}, isSequence));
  });
});
