import type { Publisher } from '@postbus/bus';
import type { UserRef } from '@postbus/contracts';
import { createLogger } from '@postbus/logger';
import { messageContext } from '@postbus/testing/fakes';
import { refKey, type FieldChanges } from './fields';
import type { NewUser, UserCommandStore } from './ports';
import type { ParkedCommand, UserRecord } from './records';
import { UserCommands } from './user-commands';

const logger = createLogger({ service: 'users-test', level: 'error' });

/** An in-memory users store: users by id, their keys by `<project>:<ref>`, parked commands by id. */
function fakeStore() {
  const users = new Map<string, UserRecord>();
  const keys = new Map<string, string>();
  const parked = new Map<string, ParkedCommand>();
  let next = 0;
  const keyOf = (projectId: string, ref: UserRef) => `${projectId}:${refKey(ref)}`;
  const insert = (user: NewUser): Promise<UserRecord | 'exists' | 'user_id_taken'> => {
    if (keys.has(keyOf(user.projectId, { email: user.email }))) return Promise.resolve('exists');
    if (user.userId && keys.has(keyOf(user.projectId, { userId: user.userId }))) return Promise.resolve('user_id_taken');
    const id = `u${++next}`;
    const doc = {
      _id: id,
      projectId: user.projectId,
      email: user.email,
      userId: user.userId,
      createdBy: user.createdBy,
      fields: {},
      unsubscribedAt: null,
      unsubscribeReason: null,
      erasure: null,
      createdAt: new Date(),
      updatedAt: new Date(),
      ...user.changes.set,
    } as unknown as UserRecord;
    users.set(id, doc);
    keys.set(keyOf(user.projectId, { email: user.email }), id);
    if (user.userId) keys.set(keyOf(user.projectId, { userId: user.userId }), id);
    return Promise.resolve(doc);
  };
  const store: UserCommandStore = {
    findByRef: (projectId, ref) => {
      const id = keys.get(keyOf(projectId, ref));
      return Promise.resolve(id ? (users.get(id) ?? null) : null);
    },
    findById: (id) => Promise.resolve(users.get(id) ?? null),
    insert,
    insertMany: async (many) => {
      const inserted: UserRecord[] = [];
      const notInserted: number[] = [];
      for (const [i, user] of many.entries()) {
        const result = await insert(user);
        if (typeof result === 'string') notInserted.push(i);
        else inserted.push(result);
      }
      return { inserted, notInserted };
    },
    claimKeys: () => Promise.resolve('claimed'),
    applyChanges: (user: UserRecord, changes: FieldChanges) => {
      const doc = users.get(String(user._id))!;
      if (changes.userId) {
        const holder = keys.get(keyOf(user.projectId, { userId: changes.userId }));
        if (holder && holder !== String(user._id)) return Promise.resolve('user_id_taken');
        keys.set(keyOf(user.projectId, { userId: changes.userId }), String(user._id));
      }
      if (changes.userId !== undefined) doc.userId = changes.userId;
      for (const [path, value] of Object.entries(changes.set)) {
        if (path.startsWith('fields.')) doc.fields[path.slice('fields.'.length)] = value;
        else (doc as unknown as Record<string, unknown>)[path] = value;
      }
      for (const path of changes.unset) delete doc.fields[path.slice('fields.'.length)];
      return Promise.resolve('applied');
    },
    markUnsubscribed: (user, reason, at) => {
      Object.assign(users.get(String(user._id))!, { unsubscribedAt: at, unsubscribeReason: reason });
      return Promise.resolve();
    },
    markResubscribed: (user) => {
      Object.assign(users.get(String(user._id))!, { unsubscribedAt: null, unsubscribeReason: null });
      return Promise.resolve();
    },
    park: (command) => {
      if (!parked.has(command.commandId)) parked.set(command.commandId, command);
      return Promise.resolve();
    },
    parkedFor: (projectId, refs) =>
      Promise.resolve(
        [...parked.values()]
          .filter((p) => p.projectId === projectId && refs.includes(p.ref))
          .sort((a, b) => a.acceptedAt.getTime() - b.acceptedAt.getTime()),
      ),
    parkedById: (id) => Promise.resolve(parked.get(id) ?? null),
    forgetParkedRefs: () => Promise.resolve(),
    oldestParked: (limit) =>
      Promise.resolve([...parked.values()].sort((a, b) => a.acceptedAt.getTime() - b.acceptedAt.getTime()).slice(0, limit)),
    unpark: (id) => {
      parked.delete(id);
      return Promise.resolve();
    },
  };
  return { store, users, parked };
}

interface Published {
  topic: string;
  type: string;
  key: string;
  data: Record<string, unknown>;
  id: string;
}

function setup(options: { retryWindowMs?: number; createsHandledUpTo?: (t: Date) => Promise<boolean> } = {}) {
  const { store, users, parked } = fakeStore();
  const published: Published[] = [];
  const publisher = {
    publish: (topic: string, type: string, key: string, data: Record<string, unknown>, opts: { id: string }) => {
      published.push({ topic, type, key, data, id: opts.id });
      return Promise.resolve(opts.id);
    },
  } as unknown as Publisher;
  let now = new Date('2026-01-01T00:00:00Z');
  const commands = new UserCommands({
    users: store,
    publisher,
    logger,
    retryWindowMs: options.retryWindowMs ?? 60_000,
    ...(options.createsHandledUpTo ? { createsHandledUpTo: options.createsHandledUpTo } : {}),
    now: () => now,
  });
  const advance = (ms: number) => (now = new Date(now.getTime() + ms));
  return { commands, published, users, parked, advance };
}

const acceptedAt = '2026-01-01T00:00:00.000Z';

describe('UserCommands.create', () => {
  it('stores a new user and announces user.created with an id derived from the command', async () => {
    const { commands, published, users } = setup();
    await commands.create({ projectId: 'p1', email: 'ann@example.com', fields: { name: 'Ann', plan: 'pro' } }, messageContext('c1'));
    expect(users.size).toBe(1);
    const [user] = [...users.values()];
    expect(user).toMatchObject({ email: 'ann@example.com', name: 'Ann', createdBy: 'c1' });
    expect(published).toEqual([
      expect.objectContaining({
        type: 'user.created',
        id: 'c1.created',
        data: expect.objectContaining({ email: 'ann@example.com', userId: null }),
      }),
    ]);
  });

  it('rejects a user_id another user holds, and creates the user without it', async () => {
    const { commands, published, users } = setup();
    await commands.create({ projectId: 'p1', email: 'a@example.com', userId: 'u-1' }, messageContext('c1'));
    await commands.create({ projectId: 'p1', email: 'b@example.com', userId: 'u-1' }, messageContext('c2'));
    expect(published.map((p) => [p.type, p.id])).toEqual([
      ['user.created', 'c1.created'],
      ['user.update_rejected', 'c2.rejected'],
      ['user.created', 'c2.created'],
    ]);
    expect(published[1]!.data).toMatchObject({ reason: 'user_id_taken', command: 'user.create' });
    expect([...users.values()].find((u) => u.email === 'b@example.com')!.userId).toBeNull();
  });

  it('a create for a known user merges only what differs, and writes nothing when nothing does', async () => {
    const { commands, published } = setup();
    await commands.create({ projectId: 'p1', email: 'a@example.com', fields: { name: 'Ann' } }, messageContext('c1'));
    await commands.create({ projectId: 'p1', email: 'a@example.com', fields: { name: 'Ann' } }, messageContext('c2'));
    expect(published).toHaveLength(1);
    await commands.create({ projectId: 'p1', email: 'a@example.com', fields: { name: 'Ann', country: 'FR' } }, messageContext('c3'));
    expect(published).toHaveLength(2);
    expect(published[1]).toMatchObject({ type: 'user.updated', id: 'c3.updated', data: { changed: ['country'] } });
  });

  it('a create redelivered after it stored its user announces the same user.created again', async () => {
    const { commands, published, users } = setup();
    await commands.create({ projectId: 'p1', email: 'a@example.com' }, messageContext('c1'));
    await commands.create({ projectId: 'p1', email: 'a@example.com' }, messageContext('c1'));
    expect(users.size).toBe(1);
    expect(published.map((p) => p.id)).toEqual(['c1.created', 'c1.created']);
  });

  it('createMany inserts what it can and returns the indexes create() must handle one by one', async () => {
    const { commands, published } = setup();
    await commands.create({ projectId: 'p1', email: 'known@example.com' }, messageContext('c0'));
    const rest = await commands.createMany([
      { data: { projectId: 'p1', email: 'new@example.com' }, ctx: messageContext('c1') },
      { data: { projectId: 'p1', email: 'known@example.com' }, ctx: messageContext('c2') },
    ]);
    expect(rest).toEqual([1]);
    expect(published.map((p) => p.id)).toEqual(['c0.created', 'c1.created']);
  });
});

describe('UserCommands: commands for a user not created yet', () => {
  it('parks an update, and applies it once the create has come', async () => {
    const { commands, published, parked, users } = setup();
    await commands.update({ projectId: 'p1', user: { email: 'a@example.com' }, fields: { plan: 'pro' }, acceptedAt }, messageContext('c1'));
    expect(published).toEqual([]);
    expect([...parked.values()]).toEqual([expect.objectContaining({ commandId: 'c1', ref: 'email:a@example.com', type: 'user.update' })]);
    await commands.create({ projectId: 'p1', email: 'a@example.com' }, messageContext('c2'));
    expect(await commands.sweepParked()).toBe(1);
    expect(parked.size).toBe(0);
    expect([...users.values()][0]!.fields).toEqual({ plan: 'pro' });
    expect(published.map((p) => [p.type, p.id])).toEqual([
      ['user.created', 'c2.created'],
      ['user.updated', 'c1.updated'],
    ]);
  });

  it('applies the parked commands first when the user is next named by a command', async () => {
    const { commands, published, parked } = setup();
    await commands.unsubscribe({ projectId: 'p1', user: { email: 'a@example.com' }, acceptedAt }, messageContext('c1'));
    await commands.create({ projectId: 'p1', email: 'a@example.com' }, messageContext('c2'));
    await commands.update({ projectId: 'p1', user: { email: 'a@example.com' }, fields: { name: 'Ann' }, acceptedAt }, messageContext('c3'));
    expect(parked.size).toBe(0);
    expect(published.map((p) => p.id)).toEqual(['c2.created', 'c1.unsubscribed', 'c3.updated']);
  });

  it('rejects a parked command only once the window has passed and the creates within it are handled', async () => {
    let handled = false;
    const { commands, published, parked, advance } = setup({ retryWindowMs: 60_000, createsHandledUpTo: () => Promise.resolve(handled) });
    await commands.update({ projectId: 'p1', user: { userId: 'u-9' }, fields: { plan: 'pro' }, acceptedAt }, messageContext('c1'));
    expect(await commands.sweepParked()).toBe(0); // the window has not passed
    advance(60_001);
    expect(await commands.sweepParked()).toBe(0); // a create published within the window may still be queued
    expect(parked.size).toBe(1);
    handled = true;
    expect(await commands.sweepParked()).toBe(1);
    expect(parked.size).toBe(0);
    expect(published).toEqual([
      expect.objectContaining({
        type: 'user.update_rejected',
        id: 'c1.rejected',
        data: expect.objectContaining({ reason: 'user_not_found', command: 'user.update', user: { userId: 'u-9' } }),
      }),
    ]);
  });
});

describe('UserCommands: subscription', () => {
  it('unsubscribes once: a second unsubscribe announces nothing', async () => {
    const { commands, published, users } = setup();
    await commands.create({ projectId: 'p1', email: 'a@example.com' }, messageContext('c1'));
    await commands.unsubscribe({ projectId: 'p1', user: { email: 'a@example.com' }, reason: 'too many', acceptedAt }, messageContext('c2'));
    await commands.unsubscribe({ projectId: 'p1', user: { email: 'a@example.com' }, acceptedAt }, messageContext('c3'));
    expect(published.map((p) => p.id)).toEqual(['c1.created', 'c2.unsubscribed']);
    expect(published[1]!.data).toMatchObject({ reason: 'too many', unsubscribedAt: acceptedAt });
    expect([...users.values()][0]!.unsubscribeReason).toBe('too many');
  });

  it('a resubscribe lifts an earlier unsubscribe, never one the recipient made after it', async () => {
    const { commands, users } = setup();
    await commands.create({ projectId: 'p1', email: 'a@example.com' }, messageContext('c1'));
    await commands.unsubscribe(
      { projectId: 'p1', user: { email: 'a@example.com' }, acceptedAt: '2026-01-02T00:00:00.000Z' },
      messageContext('c2'),
    );
    await commands.resubscribe(
      { projectId: 'p1', user: { email: 'a@example.com' }, acceptedAt: '2026-01-01T12:00:00.000Z' },
      messageContext('c3'),
    );
    expect([...users.values()][0]!.unsubscribedAt).not.toBeNull();
    await commands.resubscribe(
      { projectId: 'p1', user: { email: 'a@example.com' }, acceptedAt: '2026-01-03T00:00:00.000Z' },
      messageContext('c4'),
    );
    expect([...users.values()][0]!.unsubscribedAt).toBeNull();
  });
});
