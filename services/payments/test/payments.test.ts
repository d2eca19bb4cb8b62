import { connectDb, KnownUsers, onRequestPath, type Connection } from '@postbus/db';
import { createLogger } from '@postbus/logger';
import { defaultMongoUrl, uniqueName } from '@postbus/testing';
import type { NewPayment } from '../src/domain/ports';
import { erasedList, PaymentRepository, userList } from '../src/model/payment.repository';
import { paymentModels } from '../src/model/payment.schema';
import { erasedPseudonym, PaymentErasure } from '../src/domain/erasure-participant';
import { seedPayments } from '../src/seed';

describe('payments store on the real MongoDB-wire server', () => {
  let db: Connection;
  let payments: PaymentRepository;
  const logger = createLogger({ service: 'payments-test', level: 'error' });

  beforeAll(async () => {
    db = await connectDb({ url: defaultMongoUrl(), dbName: uniqueName('payrepo').replace(/-/g, '_') });
    payments = new PaymentRepository(paymentModels(db));
    await payments.init();
  });

  afterAll(async () => {
    await db?.dropDatabase();
    await db?.close();
  });

  const record = async (repo: PaymentRepository, p: NewPayment) => {
    const stored = await repo.insert(p, new Date());
    if (stored === 'duplicate') throw new Error('duplicate');
    await repo.recorded(stored, 'new');
  };

  it('14.3 revenue: the rollup read (point reads only) equals the sum of the recorded payments, over two instances', async () => {
    const projectId = 'rev-project';
    const other = new PaymentRepository(paymentModels(db)); // a second instance: its own shards
    const recorded: NewPayment[] = Array.from({ length: 120 }, (_, n) => ({
      projectId,
      paymentId: `r${n}`,
      email: `u${n % 17}@example.com`,
      userId: null,
      uid: `uid-${n % 17}`,
      amount: 100 + n,
      currency: n % 3 === 0 ? 'USD' : 'EUR',
      paidAt: new Date(Date.UTC(2026, 2, 30 + (n % 4), 12)), // 30 March .. 2 April: two months
      description: null,
      metadata: {},
      commandId: `c${n}`,
    }));
    // Eight at a time, as partitions would: both instances at once.
    for (let from = 0; from < recorded.length; from += 8)
      await Promise.all(recorded.slice(from, from + 8).map((p, k) => record((from + k) % 2 ? other : payments, p)));
    // A payment outside the range and one of another project count nowhere.
    await record(payments, { ...recorded[0]!, paymentId: 'outside', paidAt: new Date(Date.UTC(2026, 3, 9)) });
    await record(payments, { ...recorded[0]!, projectId: 'another', paymentId: 'elsewhere' });

    const figures = await onRequestPath('strict', () => payments.revenue(projectId, '2026-03-30', '2026-04-02'));
    const days = new Map<string, { day: string; currency: string; total: number; payments: number }>();
    const currencies = new Map<string, { currency: string; total: number; payments: number; users: Set<string> }>();
    for (const p of recorded) {
      const day = p.paidAt.toISOString().slice(0, 10);
      const d = days.get(`${day}|${p.currency}`) ?? { day, currency: p.currency, total: 0, payments: 0 };
      d.total += p.amount;
      d.payments++;
      days.set(`${day}|${p.currency}`, d);
      const c = currencies.get(p.currency) ?? { currency: p.currency, total: 0, payments: 0, users: new Set() };
      c.total += p.amount;
      c.payments++;
      c.users.add(p.uid!);
      currencies.set(p.currency, c);
    }
    expect(figures.days).toEqual([...days.values()].sort((a, b) => a.day.localeCompare(b.day) || a.currency.localeCompare(b.currency)));
    expect(figures.currencies).toEqual(
      [...currencies.values()]
        .sort((a, b) => a.currency.localeCompare(b.currency))
        .map(({ users, ...c }) => ({ ...c, payingUsers: users.size })),
    );
    expect(figures.payingUsers).toBe(17);
    expect((await payments.revenue(projectId, '2026-04-09', '2026-04-09')).days).toEqual([
      { day: '2026-04-09', currency: 'USD', total: 100, payments: 1 },
    ]);
  }, 120_000);

  it('14.1 payments: a user’s payments are listed newest first, page by page, by point reads', async () => {
    const projectId = 'list-project';
    for (let n = 0; n < 5; n++)
      await record(payments, {
        projectId,
        paymentId: `l${n}`,
        email: 'lister@example.com',
        userId: null,
        uid: 'uid-lister',
        amount: n,
        currency: 'EUR',
        paidAt: new Date(),
        description: null,
        metadata: {},
        commandId: `lc${n}`,
      });
    const first = await onRequestPath('strict', () => payments.page(projectId, userList(projectId, 'uid-lister'), 3));
    expect(first.map((e) => e.payment?.paymentId)).toEqual(['l4', 'l3', 'l2']);
    const second = await onRequestPath('strict', () => payments.page(projectId, userList(projectId, 'uid-lister'), 3, first[2]!.seq));
    expect(second.map((e) => e.payment?.paymentId)).toEqual(['l1', 'l0']);
  }, 60_000);

  it('14.1 erasure: 1,200 payments of one person are anonymised in chunks of point updates, and an interrupted run resumes', async () => {
    const projectId = 'erase-project';
    const known = new KnownUsers(db);
    const seeded = await seedPayments(
      db,
      { projectId, count: 2_000, users: 50, person: 'Many@Example.com', personCount: 1_200, prefix: 'er' },
      known,
    );
    const erasure = new PaymentErasure({ payments, users: known, logger });
    const day = (offset: number) => new Date(Date.now() - offset * 86_400_000).toISOString().slice(0, 10);
    const before = await payments.revenue(projectId, day(31), day(-1));
    const subject = {
      erasureId: 'era_many',
      projectId,
      id: null,
      email: 'many@example.com',
      userId: null,
      before: new Date(Date.now() + 60_000).toISOString(),
    };

    // The first run dies after 500 updates (as a crash would).
    const Payment = db.model('Payment');
    const updateOne = Payment.updateOne.bind(Payment);
    let updates = 0;
    const spy = jest.spyOn(Payment, 'updateOne').mockImplementation(((...args: Parameters<typeof updateOne>) => {
      if (++updates > 500) throw new Error('crash');
      return updateOne(...args);
    }) as typeof Payment.updateOne);
    await expect(onRequestPath('strict', () => erasure.erase(subject))).rejects.toThrow('crash');
    spy.mockRestore();
    const pseudonym = erasedPseudonym('era_many');
    const anonymised = () => db.collection('payments').countDocuments({ projectId, email: pseudonym });
    // The updates in flight when it died still land: counted once the count has held for a second
    // (a fixed wait was too short on a loaded machine, and the resumed run then found fewer to do).
    let anonymisedBeforeCrash = -1;
    for (let held = 0, last = await anonymised(); held < 4; held++) {
      await new Promise((resolve) => setTimeout(resolve, 250));
      const now = await anonymised();
      if (now !== last) held = -1;
      last = now;
      anonymisedBeforeCrash = now;
    }
    expect(anonymisedBeforeCrash).toBeGreaterThanOrEqual(400);
    expect(anonymisedBeforeCrash).toBeLessThan(1_200);

    const resumed = await onRequestPath('strict', () => erasure.erase(subject));
    expect(resumed.payments_anonymised).toBe(1_200 - anonymisedBeforeCrash);
    expect(resumed.known_users).toBe(2);
    const theirs = await db
      .collection('payments')
      .find({ projectId, paymentId: { $regex: '^er-person-' } })
      .toArray();
    expect(theirs).toHaveLength(1_200);
    expect(theirs.every((p) => p['email'] === pseudonym && p['userId'] === null && p['description'] === null)).toBe(true);
    // Everyone else keeps their data; the revenue is the same; the person's list is gone, the pseudonym's has them all.
    expect(await db.collection('payments').countDocuments({ projectId, email: pseudonym })).toBe(1_200);
    expect(await payments.revenue(projectId, day(31), day(-1))).toEqual(before);
    expect(await payments.page(projectId, userList(projectId, seeded.person!.id), 10)).toEqual([]);
    const listed = new Set<string>();
    for (let beforeSeq: number | undefined; ;) {
      const page = await payments.page(projectId, erasedList(projectId, 'era_many'), 100, beforeSeq);
      for (const e of page) listed.add(e.payment!.paymentId);
      if (page.length < 100) break;
      beforeSeq = page[page.length - 1]!.seq;
    }
    expect(listed.size).toBe(1_200);
    expect(await onRequestPath('strict', () => erasure.erase(subject))).toEqual({ payments_anonymised: 0, known_users: 0 });
  }, 180_000);
});
