import { createHmac } from 'node:crypto';
import { connectDb, isPointFilter, recordQueries, type Connection } from '@postbus/db';
import { defaultMongoUrl, uniqueName } from '@postbus/testing';
import { ERASURE } from '../src/domain/suppression-reasons';
import { Suppressions } from '../src/model/suppression.repository';

/** A project's suppression list against the real MongoDB-wire server: what it shows, in what order, and what an erasure leaves. */
describe('the suppression list', () => {
  let db: Connection;
  let suppressions: Suppressions;
  const P = 'p-suppression-list';
  const at = (minute: number) => new Date(Date.UTC(2026, 10, 27, 9, minute));
  const hashAddress = (email: string) => createHmac('sha256', 'the erasure audit key of this test').update(email).digest('hex');
  /** An address suppressed for one reason, as the list shows it. */
  const shown = (email: string, reason: string, minute: number, messageId: string | null = null) => ({
    email,
    reason,
    created_at: at(minute).toISOString(),
    message_id: messageId,
    reasons: [{ reason, created_at: at(minute).toISOString(), message_id: messageId }],
  });

  beforeAll(async () => {
    db = await connectDb({ url: defaultMongoUrl(), dbName: uniqueName('t').replace(/-/g, '_') });
    suppressions = new Suppressions(db, hashAddress);
    await suppressions.init();
  });

  afterAll(async () => {
    await db?.dropDatabase();
    await db?.close();
  });

  it('lists suppressions newest first with their reason and message, pages by cursor, filters by reason and address', async () => {
    await suppressions.block(P, 'gone@example.org', 'hard_bounce', at(1), 'msg_gone');
    await suppressions.unsubscribed(P, 'left@example.org', at(2));
    await suppressions.block(P, 'angry@example.org', 'complaint', at(3), 'msg_angry');
    await suppressions.block(P, 'manual@example.org', 'manual', at(4));
    await suppressions.block('another-project', 'gone@example.org', 'hard_bounce', at(5), 'msg_other');

    const first = await suppressions.page(P, { limit: 2 });
    expect(first.data).toEqual([shown('manual@example.org', 'manual', 4), shown('angry@example.org', 'complaint', 3, 'msg_angry')]);
    const second = await suppressions.page(P, { limit: 2, cursor: first.next! });
    expect(second.data.map((s) => [s.email, s.reason])).toEqual([
      ['left@example.org', 'unsubscribed'],
      ['gone@example.org', 'hard_bounce'],
    ]);
    expect(second.next).toBeNull();
    expect((await suppressions.page(P, { limit: 50, reason: 'complaint' })).data.map((s) => s.email)).toEqual(['angry@example.org']);
    expect((await suppressions.page(P, { limit: 50, email: 'gone@example.org' })).data).toEqual([
      shown('gone@example.org', 'hard_bounce', 1, 'msg_gone'),
    ]);
  });

  it('a bounce wins over an unsubscribe; lifting it leaves the unsubscribe, and the address gets mail where unsubscribes do not count', async () => {
    await suppressions.unsubscribed(P, 'both@example.org', at(10));
    await suppressions.block(P, 'both@example.org', 'hard_bounce', at(11), 'msg_both');
    expect(await suppressions.current(P, 'both@example.org')).toMatchObject({ reason: 'hard_bounce' });
    expect(await suppressions.reasons([{ projectId: P, email: 'both@example.org' }])).toEqual(['hard_bounce']);

    expect(await suppressions.unblock(P, 'both@example.org')).toEqual({ lifted: true, kept: null });
    expect(await suppressions.current(P, 'both@example.org')).toMatchObject({ reason: 'unsubscribed' });
    expect(await suppressions.reasons([{ projectId: P, email: 'both@example.org' }])).toEqual(['unsubscribed']);
    expect(await suppressions.unblock(P, 'both@example.org')).toEqual({ lifted: false, kept: null });
    // Listed once, under the suppression it has now.
    const listed = (await suppressions.page(P, { limit: 50 })).data.filter((s) => s.email === 'both@example.org');
    expect(listed).toEqual([expect.objectContaining({ reason: 'unsubscribed' })]);
  });

  it('a lifted suppression leaves the list, and a new one for the address is listed anew', async () => {
    await suppressions.block(P, 'again@example.org', 'manual', at(20));
    await suppressions.unblock(P, 'again@example.org');
    expect((await suppressions.page(P, { limit: 50 })).data.some((s) => s.email === 'again@example.org')).toBe(false);
    await suppressions.block(P, 'again@example.org', 'hard_bounce', at(21), 'msg_again');
    expect((await suppressions.page(P, { limit: 50 })).data.filter((s) => s.email === 'again@example.org')).toEqual([
      expect.objectContaining({ reason: 'hard_bounce', message_id: 'msg_again' }),
    ]);
  });

  it('an erasure removes the suppressions and every document of the list that holds the address', async () => {
    await suppressions.block(P, 'erased@example.org', 'manual', at(30));
    await suppressions.unsubscribed(P, 'erased@example.org', at(31));
    await suppressions.removeAll(P, ['erased@example.org'], null, at(40));
    expect(await suppressions.current(P, 'erased@example.org')).toBeNull();
    expect((await suppressions.page(P, { limit: 50 })).data.some((s) => s.email === 'erased@example.org')).toBe(false);
    const left = await db.collection('suppressions').countDocuments({ email: 'erased@example.org' });
    expect(left).toBe(0);
  });

  it('a message accepted before an erasure ran, handled after it, is suppressed by address and by user id; a later one is not', async () => {
    const person = { projectId: P, email: 'late@example.org', userId: 'late-user' };
    await suppressions.addErasure(person, at(0));
    await suppressions.removeAll(P, [person.email], person.userId, at(40));
    await suppressions.removeAll(P, [person.email], person.userId, at(30)); // an older pass redelivered keeps the later time
    expect(
      await suppressions.reasons([
        { ...person, acceptedAt: at(39) },
        { projectId: P, email: person.email, acceptedAt: at(40) },
        { projectId: P, email: 'someone-else@example.org', userId: person.userId, acceptedAt: at(35) },
        { ...person, acceptedAt: at(41) },
        { projectId: 'another-project-3', email: person.email, userId: person.userId, acceptedAt: at(39) },
        // A copy checked without its message's time: nothing to compare, so the erasure is over.
        { projectId: P, email: person.email },
      ]),
    ).toEqual([ERASURE, ERASURE, ERASURE, undefined, undefined, undefined]);
    const kept = await db.collection('suppressions').find({ reason: ERASURE }).toArray();
    expect(JSON.stringify(kept)).not.toContain('late@example.org');
    expect(JSON.stringify(kept)).not.toContain('late-user');
  });

  it('an erased address that bounced or complained stays suppressed by a hash of it alone, until the client lifts it', async () => {
    await suppressions.block(P, 'complained@example.org', 'complaint', at(50), 'msg_complained');
    await suppressions.block(P, 'dead@example.org', 'hard_bounce', at(51), 'msg_dead');
    await suppressions.unsubscribed(P, 'dead@example.org', at(52));
    await suppressions.removeAll(P, ['complained@example.org', 'dead@example.org'], null, at(60));
    await suppressions.removeAll(P, ['complained@example.org', 'dead@example.org'], null, at(60)); // a redelivered erasure changes nothing

    for (const email of ['complained@example.org', 'dead@example.org'])
      expect(await db.collection('suppressions').countDocuments({ email })).toBe(0);
    const kept = await db
      .collection('suppressions')
      .find({ _id: { $in: [`${P}:erased:${hashAddress('dead@example.org')}`] } } as never)
      .toArray();
    expect(kept).toEqual([expect.objectContaining({ email: null, reason: 'hard_bounce' })]);
    expect(JSON.stringify(kept)).not.toContain('dead@example.org');
    expect(
      await suppressions.reasons([
        { projectId: P, email: 'complained@example.org' },
        { projectId: P, email: 'dead@example.org' },
        { projectId: 'another-project-2', email: 'dead@example.org' },
      ]),
    ).toEqual(['complaint', 'hard_bounce', undefined]);
    // Not in the list (it names no one), but the address asked about is shown with its reason.
    expect((await suppressions.page(P, { limit: 50 })).data.some((s) => s.email === 'dead@example.org')).toBe(false);
    expect(await suppressions.current(P, 'dead@example.org')).toEqual(shown('dead@example.org', 'hard_bounce', 51));

    await suppressions.unblock(P, 'dead@example.org');
    expect(await suppressions.reasons([{ projectId: P, email: 'dead@example.org' }])).toEqual([undefined]);
  });

  it('a suppression whose process died before it was listed is listed when the same report comes again', async () => {
    // As if the process died between the suppression and its list entry.
    const stored = {
      projectId: P,
      email: 'half@example.org',
      reason: 'hard_bounce',
      at: at(70),
      entry: 'entry-of-half',
      messageId: 'msg_half',
    };
    await db.collection('suppressions').insertOne({ _id: `${P}:block:half@example.org`, ...stored } as never);
    expect((await suppressions.page(P, { limit: 50 })).data.some((s) => s.email === 'half@example.org')).toBe(false);
    const again = await suppressions.block(P, 'half@example.org', 'hard_bounce', at(71), 'msg_half');
    expect(again).toMatchObject({ entry: 'entry-of-half', at: at(70) });
    expect((await suppressions.page(P, { limit: 50 })).data.filter((s) => s.email === 'half@example.org')).toEqual([
      shown('half@example.org', 'hard_bounce', 70, 'msg_half'),
    ]);
    await suppressions.block(P, 'half@example.org', 'hard_bounce', at(72), 'msg_half');
    expect((await suppressions.page(P, { limit: 50 })).data.filter((s) => s.email === 'half@example.org')).toHaveLength(1);
  });

  it('answers the trigger path by _id alone: one read a recipient, one more for its user id, two dozen suppressions or none', async () => {
    for (let i = 0; i < 24; i++) await suppressions.block(P, `dead-${i}@example.org`, 'hard_bounce', at(80));
    const recipients = Array.from({ length: 10 }, (_, i) => ({ projectId: P, email: `alive-${i}@example.org`, userId: `u-alive-${i}` }));
    const recorded = recordQueries(['suppressions', 'suppressed_addresses']);
    let reasons: Array<string | undefined>;
    try {
      reasons = await suppressions.reasons([...recipients, { projectId: P, email: 'dead-3@example.org' }]);
    } finally {
      recorded.stop();
    }
    expect(reasons).toEqual([...recipients.map(() => undefined), 'hard_bounce']);
    expect(recorded.queries.filter((q) => !isPointFilter(q.filter))).toEqual([]);
    // The markers of 10 addresses and 10 user ids; the suppressed address: its marker and the five keys it may have.
    expect(recorded.queries).toHaveLength(26);
  });

  it('marks the suppressions stored before markers were kept at its first start, and only then', async () => {
    const older = await connectDb({ url: defaultMongoUrl(), dbName: uniqueName('t').replace(/-/g, '_') });
    try {
      const Q = 'p-before-markers';
      await older.collection('suppressions').insertMany([
        { _id: `${Q}:block:gone@example.org`, projectId: Q, email: 'gone@example.org', reason: 'hard_bounce', at: at(1) },
        { _id: `${Q}:left@example.org`, projectId: Q, email: 'left@example.org', reason: 'unsubscribed', at: at(2) },
        { _id: `${Q}:erase:email:leaving@example.org`, projectId: Q, email: 'leaving@example.org', reason: ERASURE, at: at(3) },
        { _id: `${Q}:erased:${hashAddress('erased@example.org')}`, projectId: Q, email: null, reason: 'complaint', at: at(4) },
        { _id: `${Q}:erase:uid:u-leaving`, projectId: Q, email: null, userId: 'u-leaving', reason: ERASURE, at: at(3) },
      ] as never[]);
      const upgraded = new Suppressions(older, hashAddress);
      await upgraded.init();
      const addresses = ['gone', 'left', 'leaving', 'erased', 'never'].map((name) => ({ projectId: Q, email: `${name}@example.org` }));
      expect(await upgraded.reasons(addresses)).toEqual(['hard_bounce', 'unsubscribed', ERASURE, 'complaint', undefined]);
      // A user id's erasure pending from before user ids were marked.
      expect(await upgraded.reasons([{ projectId: Q, email: 'new@example.org', userId: 'u-leaving' }])).toEqual([ERASURE]);

      // A suppression stored without its marker after the first start (which no mailer does) stays unseen: no second scan.
      await older
        .collection('suppressions')
        .insertOne({ _id: `${Q}:later@example.org`, projectId: Q, email: 'later@example.org', reason: 'unsubscribed', at: at(5) } as never);
      await new Suppressions(older, hashAddress).init();
      expect(await upgraded.reasons([{ projectId: Q, email: 'later@example.org' }])).toEqual([undefined]);
    } finally {
      await older.dropDatabase();
      await older.close();
    }
  });
});
