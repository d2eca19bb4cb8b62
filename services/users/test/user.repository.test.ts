import { connectDb, type Connection } from '@postbus/db';
import { defaultMongoUrl, uniqueName } from '@postbus/testing';
import { planFieldChanges } from '../src/domain/fields';
import { UserRepository } from '../src/model/user.repository';
import { userModels } from '../src/model/user.schema';

describe('UserRepository on the real MongoDB-wire server', () => {
  let db: Connection;
  let users: UserRepository;

  beforeAll(async () => {
    db = await connectDb({ url: defaultMongoUrl(), dbName: uniqueName('repo').replace(/-/g, '_') });
    const models = userModels(db);
    await models.User.init();
    users = new UserRepository(models);
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
});
