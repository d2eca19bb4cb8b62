/**
 * Seeds the payments service's store for `npm run bench:data`:
 *   node services/payments/dist/seed.js --project <id> --count <n> [--users <n>] [--person <email> --person-count <n>]
 * with MONGO_URL and PAYMENTS_DB_NAME. Writes what recording payments writes (the known users the
 * users service would have announced, payments, their lists, the revenue rollup) in chunks of
 * 1,000; progress on stderr, one JSON line on stdout.
 */
import { KnownUsers, seedCommand, type Connection } from '@postbus/db';
import { Types } from 'mongoose';
import type { NewPayment } from './domain/ports';
import { PaymentRepository } from './model/payment.repository';
import { paymentModels } from './model/payment.schema';

const CHUNK = 1_000;
const CURRENCIES = ['EUR', 'USD', 'GBP'];
const DAY_MS = 86_400_000;

export interface SeedPaymentsOptions {
  projectId: string;
  count: number;
  /** How many users the payments spread over (default: one per ten payments). */
  users?: number;
  /** One more user with `personCount` payments. */
  person?: string;
  personCount?: number;
  /** Over how many days before now the payments spread (default 30). */
  days?: number;
  prefix?: string;
  progress?: (done: number) => void;
}

export interface SeedPaymentsResult {
  payments: number;
  users: number;
  sample: { email: string; userId: string; paymentId: string } | null;
  person: { email: string; id: string; payments: number } | null;
}

export async function seedPayments(
  connection: Connection,
  options: SeedPaymentsOptions,
  known = new KnownUsers(connection),
): Promise<SeedPaymentsResult> {
  const payments = new PaymentRepository(paymentModels(connection));
  await Promise.all([payments.init(), known.init()]);
  const prefix = options.prefix ?? `seed${Date.now().toString(36)}`;
  const userCount = Math.max(1, options.users ?? Math.ceil(options.count / 10));
  const spreadDays = options.days ?? 30;
  const now = Date.now();
  const people = Array.from({ length: userCount }, (_, n) => ({
    id: new Types.ObjectId().toHexString(),
    email: `${prefix}-${n}@example.com`,
    userId: `${prefix}-${n}`,
  }));
  const person = options.person
    ? { id: new Types.ObjectId().toHexString(), email: options.person.trim().toLowerCase(), userId: `${prefix}-person` }
    : null;
  // The projection the user.created events would have built (a point upsert each, 16 at a time).
  const everyone = person ? [...people, person] : people;
  for (let from = 0; from < everyone.length; from += 16)
    await Promise.all(everyone.slice(from, from + 16).map((u) => known.remember({ projectId: options.projectId, ...u })));
  const payment = (n: number, user: { id: string; email: string; userId: string }, tag: string): NewPayment => ({
    projectId: options.projectId,
    paymentId: `${prefix}-${tag}${n}`,
    email: user.email,
    userId: user.userId,
    uid: user.id,
    amount: 100 + (n % 50) * 100,
    currency: CURRENCIES[n % CURRENCIES.length]!,
    paidAt: new Date(now - (n % spreadDays) * DAY_MS - (n % 1000) * 1000),
    description: 'Seeded',
    metadata: { seed: true },
    commandId: `seed-${prefix}-${tag}${n}`,
  });
  const total = options.count + (person ? (options.personCount ?? 1000) : 0);
  for (let from = 0; from < total; from += CHUNK) {
    const chunk = Array.from({ length: Math.min(CHUNK, total - from) }, (_, k) => {
      const n = from + k;
      return n < options.count ? payment(n, people[n % userCount]!, '') : payment(n - options.count, person!, 'person-');
    });
    await payments.bulkRecord(chunk, new Date());
    options.progress?.(from + chunk.length);
  }
  return {
    payments: total,
    users: everyone.length,
    sample: options.count > 0 ? { email: people[0]!.email, userId: people[0]!.userId, paymentId: `${prefix}-0` } : null,
    person: person ? { email: person.email, id: person.id, payments: options.personCount ?? 1000 } : null,
  };
}

seedCommand(module, {
  service: 'payments',
  database: 'PAYMENTS_DB_NAME',
  defaultCount: 100_000,
  options: {
    users: { type: 'string' },
    person: { type: 'string' },
    'person-count': { type: 'string', default: '1000' },
    days: { type: 'string', default: '30' },
    prefix: { type: 'string' },
  },
  usage: '[--users <n>] [--person <email> --person-count <n>] [--days <n>] [--prefix <text>]',
  parse: ({ projectId, count, values, wholeNumber }) => ({
    projectId,
    count,
    ...(values.users ? { users: wholeNumber('users')! } : {}),
    ...(values.person ? { person: values.person, personCount: wholeNumber('person-count')! } : {}),
    days: wholeNumber('days')!,
    ...(values.prefix ? { prefix: values.prefix } : {}),
  }),
  async seed(connection, options, { progress }) {
    const result = await seedPayments(connection, { ...options, progress: (done) => progress(`${done} payments`) });
    const to = new Date().toISOString().slice(0, 10);
    const from = new Date(Date.now() - options.days * DAY_MS).toISOString().slice(0, 10);
    return {
      seeded: { payments: result.payments, known_users: result.users },
      ids: {
        email: result.sample?.email ?? null,
        user_id: result.sample?.userId ?? null,
        payment_id: result.sample?.paymentId ?? null,
        person: result.person,
        revenue_from: from,
        revenue_to: to,
      },
    };
  },
});
