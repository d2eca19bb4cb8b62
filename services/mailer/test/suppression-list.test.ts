import { connectDb, type Connection } from '@postbus/db';
import { defaultMongoUrl, uniqueName } from '@postbus/testing';
import { Suppressions } from '../src/model/suppressions';

/** A project's suppression list against the real MongoDB-wire server: what it shows, in what order, and what an erasure leaves. */
describe('the suppression list', () => {
  let db: Connection;
  let suppressions: Suppressions;
  const P = 'p-suppression-list';
  const at = (minute: number) => new Date(Date.UTC(2026, 10, 27, 9, minute));

  beforeAll(async () => {
    db = await connectDb({ url: defaultMongoUrl(), dbName: uniqueName('t').replace(/-/g, '_') });
    suppressions = new Suppressions(db);
    await suppressions.init();
  });

  afterAll(async () => {
    await db?.dropDatabase();
    await db?.close();
  });

  it('lists suppressions newest first with their reason and message, pages by cursor, filters by reason and address', async () => {
    await suppressions.block(P, 'gone@example.org', 'hard_bounce', at(1), 'msg_gone');
    await suppressions.add(P, 'left@example.org', 'unsubscribed', at(2));
    await suppressions.block(P, 'angry@example.org', 'complaint', at(3), 'msg_angry');
    await suppressions.block(P, 'manual@example.org', 'manual', at(4));
    await suppressions.block('another-project', 'gone@example.org', 'hard_bounce', at(5), 'msg_other');

    const first = await suppressions.page(P, { limit: 2 });
    expect(first.data).toEqual([
      { email: 'manual@example.org', reason: 'manual', created_at: at(4).toISOString(), message_id: null },
      { email: 'angry@example.org', reason: 'complaint', created_at: at(3).toISOString(), message_id: 'msg_angry' },
    ]);
    const second = await suppressions.page(P, { limit: 2, cursor: first.next! });
    expect(second.data.map((s) => [s.email, s.reason])).toEqual([
      ['left@example.org', 'unsubscribed'],
      ['gone@example.org', 'hard_bounce'],
    ]);
    expect(second.next).toBeNull();
    expect((await suppressions.page(P, { limit: 50, reason: 'complaint' })).data.map((s) => s.email)).toEqual(['angry@example.org']);
    expect((await suppressions.page(P, { limit: 50, email: 'gone@example.org' })).data).toEqual([
      { email: 'gone@example.org', reason: 'hard_bounce', created_at: at(1).toISOString(), message_id: 'msg_gone' },
    ]);
  });

  it('a bounce wins over an unsubscribe; lifting it leaves the unsubscribe, and the address gets mail where unsubscribes do not count', async () => {
    await suppressions.add(P, 'both@example.org', 'unsubscribed', at(10));
    await suppressions.block(P, 'both@example.org', 'hard_bounce', at(11), 'msg_both');
    expect(await suppressions.current(P, 'both@example.org')).toMatchObject({ reason: 'hard_bounce' });
    expect(await suppressions.reasons([{ projectId: P, email: 'both@example.org' }])).toEqual(['hard_bounce']);

    expect(await suppressions.unblock(P, 'both@example.org')).toBe(true);
    expect(await suppressions.current(P, 'both@example.org')).toMatchObject({ reason: 'unsubscribed' });
    expect(await suppressions.reasons([{ projectId: P, email: 'both@example.org' }])).toEqual(['unsubscribed']);
    expect(await suppressions.unblock(P, 'both@example.org')).toBe(false);
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
    await suppressions.block(P, 'erased@example.org', 'complaint', at(30), 'msg_erased');
    await suppressions.add(P, 'erased@example.org', 'unsubscribed', at(31));
    await suppressions.removeAll(P, ['erased@example.org'], null, at(40));
    expect(await suppressions.current(P, 'erased@example.org')).toBeNull();
    expect((await suppressions.page(P, { limit: 50 })).data.some((s) => s.email === 'erased@example.org')).toBe(false);
    const left = await db.collection('suppressions').countDocuments({ email: 'erased@example.org' });
    expect(left).toBe(0);
  });
});
