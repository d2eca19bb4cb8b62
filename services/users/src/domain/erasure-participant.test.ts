import type { ErasureExecuteCommand } from '@postbus/contracts';
import { createLogger } from '@postbus/logger';
import { UserErasure } from './erasure-participant';
import type { ErasureTarget, UserErasureStore } from './ports';
import type { UserErasureMark, UserRecord } from './records';

const logger = createLogger({ service: 'users-test', level: 'error' });

const user = (id: string, email: string, userId: string | null, createdAt: string): UserRecord =>
  ({
    _id: id,
    projectId: 'p1',
    email,
    userId,
    createdAt: new Date(createdAt),
    erasure: null,
  }) as unknown as UserRecord;

function fakeStore(users: UserRecord[], parkedRefs: { ref: string; acceptedAt: Date }[] = []) {
  const marks = new Map<string, UserErasureMark>();
  const deleted: string[] = [];
  const unparked: { refs: string[]; before: Date }[] = [];
  const store: UserErasureStore = {
    findErasureTargets: (t: ErasureTarget) =>
      Promise.resolve(
        users.filter(
          (u) =>
            !deleted.includes(String(u._id)) &&
            (String(u._id) === t.id || u.email === t.email || (t.userId !== null && u.userId === t.userId)),
        ),
      ),
    markErasure: (u, mark) => {
      marks.set(String(u._id), mark);
      return Promise.resolve();
    },
    delete: (u) => {
      if (deleted.includes(String(u._id))) return Promise.resolve(false);
      deleted.push(String(u._id));
      return Promise.resolve(true);
    },
    unparkAll: (_projectId, refs, before) => {
      unparked.push({ refs, before });
      return Promise.resolve(parkedRefs.filter((p) => refs.includes(p.ref) && p.acceptedAt <= before).length);
    },
  };
  return { store, marks, deleted, unparked };
}

const subject: ErasureExecuteCommand = {
  projectId: 'p1',
  erasureId: 'era_1',
  id: null,
  email: 'ann@example.com',
  userId: 'u-ann',
  before: '2026-01-10T00:00:00.000Z',
};

describe('UserErasure', () => {
  it('marks every user the erasure names with its id and due time', async () => {
    const fake = fakeStore([user('a', 'ann@example.com', 'u-ann', '2026-01-01T00:00:00Z')]);
    await new UserErasure({ users: fake.store, logger }).schedule({
      ...subject,
      requestedAt: '2026-01-01T00:00:00.000Z',
      eraseAt: '2026-01-08T00:00:00.000Z',
    });
    expect(fake.marks.get('a')).toEqual({ id: 'era_1', eraseAt: new Date('2026-01-08T00:00:00.000Z') });
  });

  it('deletes the users created before the erasure ran and spares someone new with the address', async () => {
    const fake = fakeStore([
      user('old', 'ann@example.com', null, '2026-01-01T00:00:00Z'),
      user('new', 'x@example.com', 'u-ann', '2026-01-11T00:00:00Z'),
    ]);
    const erased = await new UserErasure({ users: fake.store, logger }).erase(subject);
    expect(fake.deleted).toEqual(['old']);
    expect(erased.users).toBe(1);
  });

  it("drops the commands parked under every name of the person, the subject's included, and counts them", async () => {
    const fake = fakeStore(
      [user('a', 'ann@example.com', 'u-old', '2026-01-01T00:00:00Z')],
      [
        { ref: 'email:ann@example.com', acceptedAt: new Date('2026-01-02T00:00:00Z') },
        { ref: 'uid:u-old', acceptedAt: new Date('2026-01-02T00:00:00Z') },
        { ref: 'uid:u-ann', acceptedAt: new Date('2026-01-11T00:00:00Z') }, // after the erasure ran
      ],
    );
    const erased = await new UserErasure({ users: fake.store, logger }).erase(subject);
    expect(new Set(fake.unparked[0]!.refs)).toEqual(new Set(['email:ann@example.com', 'uid:u-old', 'uid:u-ann']));
    expect(erased).toEqual({ users: 1, parked_commands: 2 });
  });

  it('run again after it completed, it deletes nothing more', async () => {
    const fake = fakeStore([user('a', 'ann@example.com', null, '2026-01-01T00:00:00Z')]);
    const erasure = new UserErasure({ users: fake.store, logger });
    await erasure.erase(subject);
    expect(await erasure.erase(subject)).toEqual({ users: 0, parked_commands: 0 });
  });
});
