import type { Publisher } from '@postbus/bus';
import { connectDb, onRequestPath, type Connection } from '@postbus/db';
import { createLogger } from '@postbus/logger';
import { defaultMongoUrl, uniqueName } from '@postbus/testing';
import { messageContext } from '@postbus/testing/fakes';
import { planFieldChanges } from '../src/domain/fields';
import { UserRepository } from '../src/model/user.repository';
import { userModels } from '../src/model/user.schema';
import { seedUsers } from '../src/seed';
import { UserCommands } from '../src/domain/user-commands';
import { UserErasure } from '../src/domain/erasure-participant';

describe('UserRepository on the real MongoDB-wire server', () => {
  let db: Connection;
  let users: UserRepository;

  beforeAll(async () => {
    db = await connectDb({ url: defaultMongoUrl(), dbName: uniqueName('repo').replace(/-/g, '_') });
    users = new UserRepository(userModels(db));
    await users.init();
  });

  afterAll(async () => {
    await db?.dropDatabase();
    await db?.close();
  });

  it('when one user gets many updates at the same time, then every one of them is kept', async () => {
    const created = await users.insert({
      projectId: 'p1',
      email: 'many@example.com',
      userId: null,
      createdBy: 'c1',
      changes: planFieldChanges({}),
    });
    if (typeof created === 'string') throw new Error(created);
    await Promise.all(Array.from({ length: 20 }, (_, i) => users.applyChanges(created, planFieldChanges({ [`f${i}`]: i }))));
    const stored = await users.findByRef('p1', { email: 'many@example.com' });
    expect(Object.keys(stored?.fields ?? {}).sort()).toEqual(Array.from({ length: 20 }, (_, i) => `f${i}`).sort());
  });

  it('a process that has not seen an email before finds it taken by the key insert: no second user document, no read', async () => {
    const newUser = (email: string, createdBy: string) => ({
      projectId: 'p5',
      email,
      userId: null,
      createdBy,
      changes: planFieldChanges({}),
    });
    const first = await users.insertMany([newUser('a@example.com', 'c1'), newUser('b@example.com', 'c2')]);
    expect(first.inserted).toHaveLength(2);
    const cold = new UserRepository(userModels(db)); // another instance: remembers nothing
    const again = await cold.insertMany([newUser('a@example.com', 'c3'), newUser('c@example.com', 'c4')]);
    expect(again.notInserted).toEqual([0]);
    expect(again.inserted.map((u) => u.email)).toEqual(['c@example.com']);
    expect(await db.collection('users').countDocuments({ projectId: 'p5' })).toBe(3);
    // Now it remembers the email as taken, and an erased user's email registers anew.
    expect((await cold.insertMany([newUser('a@example.com', 'c5')])).notInserted).toEqual([0]);
    await cold.delete((await cold.findByRef('p5', { email: 'b@example.com' }))!);
    expect((await cold.insertMany([newUser('b@example.com', 'c6')])).inserted).toHaveLength(1);
  });

  it('when a create is redelivered after a crash before or after its key was stored, then it completes the user it stored: one document, named by its keys, one user.created each time', async () => {
    const created: string[] = [];
    const publisher = {
      publish: (_topic: string, type: string, _key: string, data: { email: string }) => {
        if (type === 'user.created') created.push(data.email);
        return Promise.resolve('id');
      },
    } as unknown as Publisher;
    const commandsOf = (repository: UserRepository) =>
      new UserCommands({
        users: repository,
        publisher,
        logger: createLogger({ service: 'users-test', level: 'error' }),
        retryWindowMs: 60_000,
      });
    const items = ['before-key', 'after-key'].map((name) => ({
      data: { projectId: 'p6', email: `${name}@example.com`, userId: name, fields: { origin: name } },
      ctx: messageContext(`create-${name}`),
    }));
    expect(await commandsOf(users).createMany(items)).toEqual([]);
    const first = await Promise.all(items.map(({ data }) => users.findByRef('p6', { email: data.email })));
    // The crash: the first create's keys never made it; the second's did. Neither offset was committed.
    await db.collection('user_keys').deleteMany({ _id: { $in: ['p6:email:before-key@example.com', 'p6:uid:before-key'] } } as never);

    const restarted = new UserRepository(userModels(db)); // a new process: remembers no email
    const restartedCommands = commandsOf(restarted);
    for (const i of await restartedCommands.createMany(items)) await restartedCommands.create(items[i]!.data, items[i]!.ctx);

    expect(await db.collection('users').countDocuments({ projectId: 'p6' })).toBe(2);
    for (const [k, { data }] of items.entries()) {
      const byEmail = await restarted.findByRef('p6', { email: data.email });
      expect(byEmail?._id).toEqual(first[k]?._id);
      expect((await restarted.findByRef('p6', { userId: data.userId }))?._id).toEqual(first[k]?._id);
      expect(byEmail?.fields).toEqual({ origin: data.userId });
    }
    // Redelivered, each create says so again (same event id, deduped downstream) rather than not at all.
    expect(created.sort()).toEqual(['after-key@example.com', 'after-key@example.com', 'before-key@example.com', 'before-key@example.com']);
  });

  it('14.1 users: registration, triggers of known users, parked commands, updates, unsubscribe and erasure issue only point queries (QUERY_AUDIT strict)', async () => {
    const published: string[] = [];
    const publisher = {
      publish: (_topic: string, type: string) => {
        published.push(type);
        return Promise.resolve('id');
      },
    } as unknown as Publisher;
    const logger = createLogger({ service: 'users-test', level: 'error' });
    const commands = new UserCommands({ users, publisher, logger, retryWindowMs: 60_000 });
    const acceptedAt = new Date().toISOString();
    await onRequestPath('strict', async () => {
      // a burst of implicit registrations: new users, the same email twice, then the same users again (known)
      const burst = (round: string) =>
        Array.from({ length: 30 }, (_, i) => ({
          data: { projectId: 'p2', email: `hot-${i % 25}@example.com`, userId: `hot-${i % 25}`, fields: { round } },
          ctx: messageContext(`${round}-${i}`),
        }));
      for (const round of ['first', 'again']) {
        const items = burst(round);
        for (const i of await commands.createMany(items)) await commands.create(items[i]!.data, items[i]!.ctx);
      }
      // an update and an unsubscribe for a user not created yet are parked, then applied after the create
      await commands.update({ projectId: 'p2', user: { userId: 'late' }, fields: { plan: 'gold' }, acceptedAt }, messageContext('u1'));
      await commands.unsubscribe({ projectId: 'p2', user: { email: 'late@example.com' }, acceptedAt }, messageContext('u2'));
      await commands.create({ projectId: 'p2', email: 'late@example.com', userId: 'late' }, messageContext('c-late'));
      await commands.update(
        { projectId: 'p2', user: { email: 'late@example.com' }, fields: { user_id: 'late-2' }, acceptedAt },
        messageContext('u3'),
      );
    });
    const late = await users.findByRef('p2', { userId: 'late-2' });
    expect(late).toMatchObject({ email: 'late@example.com', fields: { plan: 'gold' } });
    expect(late?.unsubscribedAt).not.toBeNull();
    expect(await users.findByRef('p2', { userId: 'late' })).toBeNull();
    expect((await users.findByRef('p2', { email: 'hot-3@example.com' }))?.fields).toEqual({ round: 'again' });
    expect(await db.collection('users').countDocuments({ projectId: 'p2' })).toBe(26);
    expect(published.filter((t) => t === 'user.created')).toHaveLength(26);

    const erasure = new UserErasure({ users, logger });
    await onRequestPath('strict', () =>
      erasure.erase({
        erasureId: 'era_1',
        projectId: 'p2',
        id: String(late!._id),
        email: 'late@example.com',
        userId: 'late-2',
        before: new Date(Date.now() + 1000).toISOString(),
      }),
    );
    expect(await users.findByRef('p2', { email: 'late@example.com' })).toBeNull();
    expect(await db.collection('user_keys').countDocuments({ user: String(late!._id) })).toBe(0);
  });

  it('14.1 users: at 20,000 users a profile read by email or user_id stays under 100 ms', async () => {
    await seedUsers(db, { projectId: 'p3', count: 20_000, prefix: 'big' });
    const times: number[] = [];
    for (let n = 0; n < 20; n++) {
      const started = performance.now();
      const user = await onRequestPath('strict', () =>
        n % 2 ? users.findByRef('p3', { email: `big-${n * 997}@example.com` }) : users.findByRef('p3', { userId: `big-${n * 997}` }),
      );
      times.push(performance.now() - started);
      expect(user?.email).toBe(`big-${n * 997}@example.com`);
    }
    times.sort((a, b) => a - b);
    expect(times[Math.floor(times.length / 2)]).toBeLessThan(100);
    expect(times[times.length - 1]).toBeLessThan(250);
  }, 120_000);
});
