/**
 * Seeds the users service's store for `npm run bench:data`:
 *   node services/users/dist/seed.js --project <id> --count <n> [--person <email>]
 * with MONGO_URL and USERS_DB_NAME. Writes the shapes the service writes (users and their key
 * documents) in bulk inserts of 1,000; progress on stderr, one JSON line on stdout.
 */
import { seedCommand, type Connection } from '@postbus/db';
import { Types } from 'mongoose';
import { uidKeyOf } from './domain/fields';
import { userKeyId } from './model/user.repository';
import { userModels } from './model/user.schema';

const CHUNK = 1_000;

export interface SeedUsersOptions {
  projectId: string;
  count: number;
  /** One more user with this email (the person the bench reads and erases). */
  person?: string;
  /** Email and user_id prefix, so that several runs into one database do not collide. */
  prefix?: string;
  progress?: (done: number) => void;
}

/** Inserts `count` users (`<prefix>-<n>@example.com`, user_id `<prefix>-<n>`) and their keys; returns the count. */
export async function seedUsers(
  connection: Connection,
  options: SeedUsersOptions,
): Promise<{ users: number; person?: { id: string; email: string; userId: string } }> {
  const { User, UserKey } = userModels(connection);
  await Promise.all([User.init(), UserKey.init()]);
  const prefix = options.prefix ?? `seed${Date.now().toString(36)}`;
  const now = new Date();
  const people = Array.from({ length: options.count }, (_, n) => ({ email: `${prefix}-${n}@example.com`, userId: `${prefix}-${n}` }));
  if (options.person) people.push({ email: options.person.trim().toLowerCase(), userId: `${prefix}-person` });
  let person: { id: string; email: string; userId: string } | undefined;
  for (let from = 0; from < people.length; from += CHUNK) {
    const docs = people.slice(from, from + CHUNK).map(({ email, userId }, k) => ({
      _id: new Types.ObjectId(),
      projectId: options.projectId,
      email,
      userId,
      uidKey: uidKeyOf(email, userId),
      name: `User ${from + k}`,
      country: 'DE',
      language: 'de',
      gender: null,
      age: 30 + ((from + k) % 40),
      fields: { plan: (from + k) % 3 === 0 ? 'pro' : 'free' },
      unsubscribedAt: null,
      unsubscribeReason: null,
      createdBy: `seed-${prefix}-${from + k}`,
      erasure: null,
      createdAt: now,
      updatedAt: now,
    }));
    await User.insertMany(docs, { ordered: false, lean: true });
    await UserKey.insertMany(
      docs.flatMap((d) => [
        { _id: userKeyId(options.projectId, { email: d.email }), user: String(d._id) },
        { _id: userKeyId(options.projectId, { userId: d.userId }), user: String(d._id) },
      ]),
      { ordered: false, lean: true },
    );
    const last = docs[docs.length - 1]!;
    if (options.person && from + docs.length === people.length) person = { id: String(last._id), email: last.email, userId: last.userId };
    options.progress?.(Math.min(from + CHUNK, people.length));
  }
  return { users: people.length, ...(person ? { person } : {}) };
}

seedCommand(module, {
  service: 'users',
  database: 'USERS_DB_NAME',
  defaultCount: 100_000,
  options: { person: { type: 'string' }, prefix: { type: 'string' } },
  usage: '[--person <email>] [--prefix <text>]',
  parse: ({ projectId, count, values }) => ({
    projectId,
    count,
    person: values.person,
    prefix: values.prefix ?? `seed${Date.now().toString(36)}`,
  }),
  async seed(connection, { projectId, count, person, prefix }, { progress }) {
    const result = await seedUsers(connection, {
      projectId,
      count,
      prefix,
      ...(person ? { person } : {}),
      progress: (done) => progress(`${done} users`),
    });
    return {
      seeded: { users: result.users },
      ids: {
        email: count > 0 ? `${prefix}-0@example.com` : null,
        user_id: count > 0 ? `${prefix}-0` : null,
        person: result.person ?? null,
      },
    };
  },
});
