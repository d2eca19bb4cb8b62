import type { Connection } from 'mongoose';
import { ERASURE } from '../domain/suppression-reasons';
import { Suppressions } from './suppression.repository';

/** Collections in memory by model name, recording each point read as `<model> <id>`. */
function fakeConnection(
  collections: Record<string, Array<{ _id: string; reason?: string; at?: Date; reasons?: Array<{ reason: string; at: Date }> }>>,
) {
  const reads: string[] = [];
  const connection = {
    models: {},
    model: (name: string) => ({
      findById(id: string) {
        reads.push(`${name} ${id}`);
        const found = (collections[name] ?? []).find((d) => d._id === id) ?? null;
        return { lean: () => ({ exec: () => Promise.resolve(found) }) };
      },
    }),
  } as unknown as Connection;
  return { connection, reads };
}

const P = 'p1';
const hash = (email: string) => `hash(${email})`;
const at = (minute: number) => new Date(Date.UTC(2026, 0, 1, 9, minute));

describe('Suppressions.reasonFor', () => {
  const { connection, reads } = fakeConnection({
    Suppression: [
      { _id: `${P}:unsub@example.org`, reason: 'unsubscribed' },
      { _id: `${P}:both@example.org`, reason: 'unsubscribed' },
      { _id: `${P}:erase:email:both@example.org`, reason: ERASURE },
      { _id: `${P}:erase:uid:u-7`, reason: ERASURE },
      { _id: `${P}:erased:hash(bounced@example.org)`, reason: 'hard_bounce' },
      { _id: `${P}:block:dead@example.org`, reason: 'hard_bounce' },
      { _id: `${P}:dead@example.org`, reason: 'unsubscribed' },
      // Reasons that accumulated: the first one stays as `reason`.
      {
        _id: `${P}:block:angry@example.org`,
        reason: 'manual',
        reasons: [
          { reason: 'manual', at: at(1) },
          { reason: 'hard_bounce', at: at(2) },
          { reason: 'complaint', at: at(3) },
        ],
      },
      { _id: `${P}:block:erased-then-manual@example.org`, reason: 'manual' },
      { _id: `${P}:erased:hash(erased-then-manual@example.org)`, reason: 'hard_bounce', reasons: [{ reason: 'hard_bounce', at: at(0) }] },
      // When erasures ran (see erasedBeforeKey): at minute 10.
      { _id: `${P}:erased-before:hash(erased-late@example.org)`, reason: ERASURE, at: at(10) },
      { _id: `${P}:erased-before:uid:hash(user id u-erased)`, reason: ERASURE, at: at(10) },
    ],
    SuppressedAddress: [
      'unsub@example.org',
      'both@example.org',
      'bounced@example.org',
      'dead@example.org',
      'angry@example.org',
      'erased-then-manual@example.org',
      'erased-late@example.org',
      // User ids with an erasure, pending or run.
      'user id u-7',
      'user id u-erased',
    ].map((email) => ({
      _id: `${P}:${hash(email)}`,
    })),
  });
  const suppressions = new Suppressions(connection, hash);

  beforeEach(() => {
    reads.length = 0;
  });

  it('finds why each recipient gets no mail: an erasure wins, then what the mail system said, then an unsubscribe', async () => {
    const reasons = await Promise.all([
      suppressions.reasonFor({ projectId: P, email: 'free@example.org', userId: null }),
      suppressions.reasonFor({ projectId: P, email: 'unsub@example.org', userId: 'u-1' }),
      suppressions.reasonFor({ projectId: P, email: 'both@example.org', userId: null }),
      suppressions.reasonFor({ projectId: P, email: 'new-address@example.org', userId: 'u-7' }),
      suppressions.reasonFor({ projectId: 'p2', email: 'both@example.org', userId: 'u-7' }),
      // An erased address that bounced: found by the hash of the address alone.
      suppressions.reasonFor({ projectId: P, email: 'bounced@example.org', userId: null }),
      suppressions.reasonFor({ projectId: P, email: 'dead@example.org', userId: null }),
    ]);
    expect(reasons).toEqual([undefined, 'unsubscribed', ERASURE, ERASURE, undefined, 'hard_bounce', 'hard_bounce']);
  });

  it('answers the strongest of the reasons an address accumulated, across its block and what outlived its erasure', async () => {
    expect(
      await suppressions.reasons([
        { projectId: P, email: 'angry@example.org' },
        { projectId: P, email: 'erased-then-manual@example.org' },
      ]),
    ).toEqual(['complaint', 'hard_bounce']);
    // The same point reads as for a suppression with one reason: its marker and the five keys it may have, each.
    expect(reads).toHaveLength(12);
  });

  it('suppresses a message accepted before an erasure of its address or user id ran, and not one accepted after', async () => {
    const reasons = await suppressions.reasons([
      { projectId: P, email: 'erased-late@example.org', acceptedAt: at(9) },
      { projectId: P, email: 'erased-late@example.org', acceptedAt: at(11) },
      { projectId: P, email: 'free@example.org', userId: 'u-erased', acceptedAt: at(10) },
      { projectId: P, email: 'free@example.org', userId: 'u-erased', acceptedAt: at(12) },
    ]);
    expect(reasons).toEqual([ERASURE, undefined, ERASURE, undefined]);
  });

  it('reads an unmarked address and an unmarked user id by their markers alone, and a marked user id by its erasure and when one ran', async () => {
    await suppressions.reasons([
      { projectId: P, email: 'free@example.org', userId: 'u-3' },
      { projectId: 'p2', email: 'both@example.org' },
      { projectId: 'p2', email: 'free@example.org', userId: 'u-7' },
      { projectId: P, email: 'free@example.org', userId: 'u-7' },
    ]);
    expect(reads.sort()).toEqual(
      [
        `SuppressedAddress ${P}:${hash('user id u-3')}`,
        `SuppressedAddress p2:${hash('user id u-7')}`,
        `SuppressedAddress ${P}:${hash('user id u-7')}`,
        `Suppression ${P}:erase:uid:u-7`,
        `Suppression ${P}:erased-before:uid:${hash('user id u-7')}`,
        `SuppressedAddress p2:${hash('free@example.org')}`,
        `SuppressedAddress ${P}:${hash('free@example.org')}`,
        `SuppressedAddress p2:${hash('both@example.org')}`,
      ].sort(),
    );
  });

  it('reads the keys a marked address may have', async () => {
    await suppressions.reasons([{ projectId: P, email: 'dead@example.org' }]);
    expect(reads.sort()).toEqual(
      [
        `SuppressedAddress ${P}:${hash('dead@example.org')}`,
        `Suppression ${P}:erase:email:dead@example.org`,
        `Suppression ${P}:block:dead@example.org`,
        `Suppression ${P}:erased:${hash('dead@example.org')}`,
        `Suppression ${P}:erased-before:${hash('dead@example.org')}`,
        `Suppression ${P}:dead@example.org`,
      ].sort(),
    );
  });
});
