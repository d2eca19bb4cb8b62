import type { Connection } from 'mongoose';
import { ERASURE } from '../domain/suppression-reasons';
import { Suppressions } from './suppression.repository';

/** A suppressions collection in memory, counting the reads. */
function fakeConnection(docs: Array<{ _id: string; reason: string }>) {
  const finds: unknown[] = [];
  const model = {
    find(filter: { _id: { $in: string[] } }) {
      finds.push(filter);
      const found = docs.filter((d) => filter._id.$in.includes(d._id));
      return { lean: () => ({ exec: () => Promise.resolve(found) }) };
    },
  };
  return { connection: { model: () => model, models: {} } as unknown as Connection, finds };
}

const P = 'p1';

describe('Suppressions.reasonFor', () => {
  it('asks for the address and the user id of concurrent recipients in one read', async () => {
    const { connection, finds } = fakeConnection([
      { _id: `${P}:unsub@example.org`, reason: 'unsubscribed' },
      { _id: `${P}:both@example.org`, reason: 'unsubscribed' },
      { _id: `${P}:erase:email:both@example.org`, reason: ERASURE },
      { _id: `${P}:erase:uid:u-7`, reason: ERASURE },
      { _id: `${P}:erased:hash(bounced@example.org)`, reason: 'hard_bounce' },
    ]);
    const suppressions = new Suppressions(connection, (email) => `hash(${email})`);
    const reasons = await Promise.all([
      suppressions.reasonFor({ projectId: P, email: 'free@example.org', userId: null }),
      suppressions.reasonFor({ projectId: P, email: 'unsub@example.org', userId: 'u-1' }),
      suppressions.reasonFor({ projectId: P, email: 'both@example.org', userId: null }),
      suppressions.reasonFor({ projectId: P, email: 'new-address@example.org', userId: 'u-7' }),
      suppressions.reasonFor({ projectId: 'p2', email: 'both@example.org', userId: 'u-7' }),
      // An erased address that bounced: found by the hash of the address alone.
      suppressions.reasonFor({ projectId: P, email: 'bounced@example.org', userId: null }),
    ]);
    expect(reasons).toEqual([undefined, 'unsubscribed', ERASURE, ERASURE, undefined, 'hard_bounce']);
    // The first call reads alone; the five that came while it was in flight share the second read.
    expect(finds).toHaveLength(2);
    expect((finds[1] as { _id: { $in: string[] } })._id.$in).toEqual(
      expect.arrayContaining([`${P}:erase:uid:u-1`, `${P}:unsub@example.org`, `${P}:erase:email:unsub@example.org`, 'p2:erase:uid:u-7']),
    );
  });
});
