import { call, defaultKafkaBrokers, TopicRecorder, waitFor } from '@postbus/testing';
import { createClientAndProject, startSystem, type DemoClient, type RunningSystem } from './system';

interface RevenueBody {
  currencies: { currency: string; total: number; payments: number; paying_users: number; average_per_paying_user: number }[];
  paying_users: number;
  days: { day: string; currency: string; total: number; payments: number }[];
}

/** Runs the tasks with at most `limit` in flight. */
async function pooled<T>(items: T[], limit: number, task: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: limit }, async () => {
      while (next < items.length) await task(items[next++]!);
    }),
  );
}

describe('payments through the public API', () => {
  let system: RunningSystem;
  let client: DemoClient;
  let events: TopicRecorder;

  beforeAll(async () => {
    system = await startSystem({ PAYMENT_USER_WAIT_MS: '2000' });
    client = await createClientAndProject(system);
    events = await new TopicRecorder(defaultKafkaBrokers().split(','), [
      `postbus.payments.events.v1.${system.env['KAFKA_NAMESPACE']}`,
    ]).start();
  });

  afterAll(async () => {
    await events?.stop();
    await system?.stop();
  });

  const api = (method: string, path: string, json?: unknown) =>
    call(system.gatewayUrl, method, `/v1/projects/${client.projectId}${path}`, {
      auth: client.auth,
      ...(json !== undefined ? { json } : {}),
    });

  const createUser = async (email: string, userId: string) => {
    expect((await api('POST', '/users', { email, user_id: userId })).status).toBe(200);
    await waitFor(async () => (await api('GET', `/users/${userId}`)).status === 200, { what: `user ${userId}` });
  };

  it('records a payment once per payment_id and lists the user’s payments newest first', async () => {
    await createUser('Ada@Example.com', 'ada-1');
    const first = await api('POST', '/payments', {
      email: 'ada@example.com',
      payment_id: 'p-1',
      amount: 1999,
      currency: 'EUR',
      paid_at: '2026-01-02T10:00:00Z',
      description: 'Plan',
      metadata: { plan: 'pro' },
    });
    expect(first.status).toBe(200);
    expect(first.body).toEqual({ status: 'accepted', request_id: expect.any(String) });
    const repeat = await api('POST', '/payments', { user_id: 'ada-1', payment_id: 'p-1', amount: 5, currency: 'EUR' });
    expect(repeat.status).toBe(200);
    expect(
      (
        await api('POST', '/payments', {
          user_id: 'ada-1',
          payment_id: 'p-2',
          amount: 500,
          currency: 'USD',
          paid_at: '2026-01-03T00:00:00Z',
        })
      ).status,
    ).toBe(200);

    const list = await waitFor(
      async () => {
        const res = await api('GET', '/payments?user_id=ada-1');
        return res.status === 200 && res.body.data.length === 2 ? res.body.data : undefined;
      },
      { what: 'two payments' },
    );
    expect(list.map((p: { payment_id: string }) => p.payment_id)).toEqual(['p-2', 'p-1']);
    expect(list[1]).toMatchObject({
      payment_id: 'p-1',
      email: 'ada@example.com',
      user_id: 'ada-1',
      amount: 1999,
      currency: 'EUR',
      paid_at: '2026-01-02T10:00:00.000Z',
      description: 'Plan',
      metadata: { plan: 'pro' },
    });
    // Give the repeat every chance to be (wrongly) counted, then check it was not.
    await waitFor(() => events.messages.filter((m) => m.headers['ce_type'] === 'payment.recorded').length >= 2);
    const byEmail = await api('GET', '/payments?email=ADA@example.com');
    expect(byEmail.body.data).toHaveLength(2);
    const revenue = await api('GET', '/analytics/revenue?from=2026-01-02&to=2026-01-02');
    expect(revenue.status).toBe(200);
    expect(revenue.body).toMatchObject({
      from: '2026-01-02',
      to: '2026-01-02',
      currencies: [{ currency: 'EUR', total: 1999, payments: 1, paying_users: 1, average_per_paying_user: 1999 }],
      paying_users: 1,
      days: [{ day: '2026-01-02', currency: 'EUR', total: 1999, payments: 1 }],
    });
  });

  it('refuses bad amounts, unknown currencies, a missing user and a backwards range with problem details', async () => {
    const base = { email: 'ada@example.com', payment_id: 'bad', currency: 'EUR', amount: 100 };
    const cases: [unknown, string][] = [
      [{ ...base, amount: -1 }, '/amount'],
      [{ ...base, amount: 1.5 }, '/amount'],
      [{ ...base, amount: '100' }, '/amount'],
      [{ ...base, currency: 'XYZ' }, '/currency'],
      [{ ...base, currency: 'eur' }, '/currency'],
      [{ payment_id: 'bad', amount: 1, currency: 'EUR' }, ''],
    ];
    for (const [body, pointer] of cases) {
      const res = await api('POST', '/payments', body);
      expect(res.status).toBe(400);
      expect(res.headers.get('content-type')).toContain('application/problem+json');
      expect(res.body.errors.map((e: { pointer: string }) => e.pointer)).toContain(pointer);
    }
    const backwards = await api('GET', '/analytics/revenue?from=2026-01-05&to=2026-01-01');
    // Each date is well-formed (the schema's 400); together they are no range (422, as schemathesis expects).
    expect(backwards.status).toBe(422);
    expect(backwards.body.type).toMatch(/invalid-range$/);
    expect((await api('GET', '/analytics/revenue?from=2026-01-05')).status).toBe(400);
    expect((await api('GET', '/payments')).status).toBe(422); // names neither email nor user_id
  });

  it('rejects a payment for a user that never appears', async () => {
    expect((await api('POST', '/payments', { email: 'nobody@example.com', payment_id: 'ghost', amount: 1, currency: 'EUR' })).status).toBe(
      200,
    );
    const rejected = await waitFor(
      () =>
        events.messages.find(
          (m) => m.headers['ce_type'] === 'payment.rejected' && (m.value as { paymentId: string }).paymentId === 'ghost',
        ),
      { timeoutMs: 20_000, what: 'payment.rejected' },
    );
    expect(rejected.value).toMatchObject({ projectId: client.projectId, user: { email: 'nobody@example.com' }, reason: 'user_not_found' });
    expect((await api('GET', '/payments?email=nobody@example.com')).body.data).toEqual([]);
  });

  it('revenue matches a hand computation over 1,000 payments in three currencies, several days and 20 users', async () => {
    const users = Array.from({ length: 20 }, (_, i) => ({ email: `payer${i}@example.com`, userId: `payer-${i}` }));
    await pooled(users, 10, (u) => createUser(u.email, u.userId));
    const currencies = ['EUR', 'USD', 'JPY'];
    const days = ['2026-02-01', '2026-02-02', '2026-02-03', '2026-02-04', '2026-02-05'];
    const payments = Array.from({ length: 1000 }, (_, i) => {
      const user = users[Math.floor(Math.random() * users.length)]!;
      const day = days[Math.floor(Math.random() * days.length)]!;
      const seconds = Math.floor(Math.random() * 86_400);
      return {
        ...(i % 2 === 0 ? { email: user.email } : { user_id: user.userId }),
        email_key: user.email,
        payment_id: `bulk-${i}`,
        amount: Math.floor(Math.random() * 100_000),
        currency: currencies[Math.floor(Math.random() * currencies.length)]!,
        paid_at: new Date(Date.parse(`${day}T00:00:00Z`) + seconds * 1000).toISOString(),
      };
    });
    await pooled(payments, 20, async ({ email_key: _, ...body }) => {
      const res = await api('POST', '/payments', body);
      if (res.status !== 200) throw new Error(`payment answered ${res.status}: ${res.text}`);
    });

    const expected = new Map<string, { total: number; payments: number; users: Set<string> }>();
    const perDay = new Map<string, { total: number; payments: number }>();
    for (const p of payments) {
      const c = expected.get(p.currency) ?? { total: 0, payments: 0, users: new Set<string>() };
      c.total += p.amount;
      c.payments += 1;
      c.users.add(p.email_key);
      expected.set(p.currency, c);
      const key = `${p.paid_at.slice(0, 10)}|${p.currency}`;
      const d = perDay.get(key) ?? { total: 0, payments: 0 };
      d.total += p.amount;
      d.payments += 1;
      perDay.set(key, d);
    }

    const revenue: RevenueBody = await waitFor(
      async () => {
        const res = await api('GET', '/analytics/revenue?from=2026-02-01&to=2026-02-05');
        const count = (res.body as RevenueBody).currencies?.reduce((n, c) => n + c.payments, 0);
        return count === 1000 ? res.body : undefined;
      },
      { timeoutMs: 60_000, intervalMs: 500, what: 'all 1,000 payments in the revenue' },
    );
    expect(revenue.currencies).toEqual(
      [...expected.entries()]
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([currency, c]) => ({
          currency,
          total: c.total,
          payments: c.payments,
          paying_users: c.users.size,
          average_per_paying_user: Math.round((c.total / c.users.size) * 100) / 100,
        })),
    );
    expect(revenue.paying_users).toBe(new Set(payments.map((p) => p.email_key)).size);
    expect(revenue.days).toEqual(
      [...perDay.entries()]
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([key, d]) => ({ day: key.split('|')[0], currency: key.split('|')[1], ...d })),
    );

    // One user's payments, page by page (7 a page), are exactly theirs, newest recorded first (the order
    // Postbus accepted them, as Stripe lists charges: a read of a list, not a sort of every payment).
    const payer = users[0]!;
    const theirs = payments
      .filter((p) => p.email_key === payer.email)
      .map((p) => p.payment_id)
      .sort();
    const paged: string[] = [];
    const recorded: number[] = [];
    let cursor: string | null = null;
    do {
      const res = await api('GET', `/payments?user_id=${payer.userId}&limit=7${cursor ? `&cursor=${cursor}` : ''}`);
      expect(res.status).toBe(200);
      expect(res.body.data.length).toBeLessThanOrEqual(7);
      paged.push(...res.body.data.map((p: { payment_id: string }) => p.payment_id));
      recorded.push(...res.body.data.map((p: { recorded_at: string }) => Date.parse(p.recorded_at)));
      cursor = res.body.next_cursor as string | null;
    } while (cursor);
    expect([...paged].sort()).toEqual(theirs);
    expect(paged).toHaveLength(new Set(paged).size);
    // The list is in the order the payments were appended to it; recorded_at is read just before,
    // by whichever batch recorded each, so two batches side by side may swap by a few ms.
    for (let i = 1; i < recorded.length; i++) expect(recorded[i]!).toBeLessThanOrEqual(recorded[i - 1]! + 1_000);
    expect((await api('GET', `/payments?user_id=${payer.userId}&cursor=bogus`)).status).toBe(422); // well-formed, not one of ours
  }, 120_000);
});
