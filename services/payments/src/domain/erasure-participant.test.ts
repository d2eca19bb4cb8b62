import type { ErasureExecuteCommand } from '@postbus/contracts';
import type { KnownUser, UserName } from '@postbus/db';
import { createLogger } from '@postbus/logger';
import { erasedPseudonym, PaymentErasure, type PaymentErasureDeps } from './erasure-participant';
import { erasedList, userList } from './payment-lists';
import type { ListedPayment } from './ports';
import type { PaymentRecord } from './records';

const logger = createLogger({ service: 'payments-test', level: 'error' });

const known = (id: string, email: string, userId: string | null): KnownUser => ({ _id: `p1:${email}`, projectId: 'p1', id, email, userId });

function setup(users: KnownUser[], lists: Record<string, Partial<PaymentRecord>[]> = {}) {
  const anonymised: { uids: string[]; erasureId: string; pseudonym: string; before: Date }[] = [];
  const forgotten: UserName[] = [];
  const matches = (u: KnownUser, name: UserName) => (!!name.email && u.email === name.email) || (!!name.userId && u.userId === name.userId);
  const deps: PaymentErasureDeps = {
    logger,
    payments: {
      anonymise: (_projectId, uids, erasureId, pseudonym, before) => {
        anonymised.push({ uids, erasureId, pseudonym, before });
        return Promise.resolve(uids.length * 2);
      },
      page: (_projectId, list) =>
        Promise.resolve(
          (lists[list] ?? []).map((payment, i): ListedPayment => ({ seq: i + 1, at: new Date(), payment: payment as PaymentRecord })),
        ),
    },
    users: {
      find: (_projectId, name) => Promise.resolve(users.find((u) => matches(u, name)) ?? null),
      byId: (_projectId, id) => Promise.resolve(users.filter((u) => u.id === id)),
      forget: (_projectId, names) => {
        forgotten.push(...names);
        return Promise.resolve(names.length);
      },
    },
  };
  return { erasure: new PaymentErasure(deps), anonymised, forgotten };
}

const subject = (over: Partial<ErasureExecuteCommand>): ErasureExecuteCommand => ({
  projectId: 'p1',
  erasureId: 'era_1',
  id: null,
  email: null,
  userId: null,
  before: '2026-01-10T00:00:00.000Z',
  ...over,
});

describe('PaymentErasure', () => {
  it('anonymises the payments of every id the person is known by, under a pseudonym of the erasure alone', async () => {
    const { erasure, anonymised } = setup([known('uid-1', 'ann@example.com', 'u-ann')]);
    await erasure.erase(subject({ email: 'ann@example.com', id: 'uid-0' }));
    expect(anonymised).toEqual([
      { uids: ['uid-0', 'uid-1'], erasureId: 'era_1', pseudonym: erasedPseudonym('era_1'), before: new Date('2026-01-10T00:00:00.000Z') },
    ]);
    expect(erasedPseudonym('era_1')).toBe('erased:era_1');
  });

  it('forgets every name of the person, those learnt from the known users and from their latest payment too', async () => {
    const { erasure, forgotten } = setup([known('uid-1', 'ann@example.com', 'u-ann')], {
      [userList('p1', 'uid-1')]: [{ email: 'ann@example.com', userId: 'u-ann' }],
    });
    const result = await erasure.erase(subject({ email: 'ann@example.com' }));
    expect(forgotten).toEqual([{ email: 'ann@example.com' }, { userId: 'u-ann' }]);
    expect(result).toEqual({ payments_anonymised: 2, known_users: 2 });
  });

  it('keeps the entry of a name that now belongs to someone else', async () => {
    // Ann's latest payment was made as old@example.com, an address someone else registered since.
    const { erasure, forgotten } = setup([known('uid-1', 'ann@example.com', null), known('uid-other', 'old@example.com', null)], {
      [userList('p1', 'uid-1')]: [{ email: 'old@example.com', userId: null }],
    });
    await erasure.erase(subject({ email: 'ann@example.com' }));
    expect(forgotten).toEqual([{ email: 'ann@example.com' }]);
  });

  it('a subject named by id alone finds its names through the known users by id', async () => {
    const { erasure, forgotten } = setup([known('uid-1', 'ann@example.com', 'u-ann')]);
    await erasure.erase(subject({ id: 'uid-1' }));
    expect(forgotten).toEqual([{ email: 'ann@example.com' }, { userId: 'u-ann' }]);
  });
});

describe('payment lists', () => {
  it("names a user's list by the users service id and an erasure's by its id", () => {
    expect(userList('p1', 'uid-1')).toBe('p1:user:uid-1');
    expect(erasedList('p1', 'era_1')).toBe('p1:erased:era_1');
    expect(userList('p1', 'era_1')).not.toBe(erasedList('p1', 'era_1'));
  });
});
