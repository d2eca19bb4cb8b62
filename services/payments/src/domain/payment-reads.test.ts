import type { KnownUser, UserName } from '@postbus/db';
import { erasedPseudonym } from './erasure-participant';
import { erasedList, userList } from './payment-lists';
import { erasureOfPseudonym, isAnonymised, isShown, PaymentReads } from './payment-reads';
import type { PaymentRecord } from './records';

const ann: KnownUser = { _id: 'p1:email:ann@example.com', projectId: 'p1', id: 'uid-ann', email: 'ann@example.com', userId: 'u-ann' };

function reads(users: KnownUser[] = [ann]) {
  const finds: UserName[] = [];
  const matches = (u: KnownUser, name: UserName) => (!!name.email && u.email === name.email) || (!!name.userId && u.userId === name.userId);
  const find = (_projectId: string, name: UserName) => {
    finds.push(name);
    return Promise.resolve(users.find((u) => matches(u, name)) ?? null);
  };
  return { reads: new PaymentReads({ find }), finds };
}

const payment = (email: string): PaymentRecord => ({ email }) as PaymentRecord;

describe('the erased pseudonym', () => {
  it('names the erasure it stands for; any other address names none', () => {
    expect(erasureOfPseudonym(erasedPseudonym('era_1'))).toBe('era_1');
    expect(erasureOfPseudonym('erased:era_2')).toBe('era_2');
    expect(erasureOfPseudonym('ann@example.com')).toBeUndefined();
    expect(erasureOfPseudonym('ann.erased:x@example.com')).toBeUndefined();
    expect(erasureOfPseudonym(undefined)).toBeUndefined();
  });

  it('marks a payment as anonymised', () => {
    expect(isAnonymised(payment(erasedPseudonym('era_1')))).toBe(true);
    expect(isAnonymised(payment('ann@example.com'))).toBe(false);
  });
});

describe('PaymentReads: which list a person read walks', () => {
  it("a known user's list, by the users service's id, by address or by user_id", async () => {
    const { reads: r } = reads();
    expect(await r.listing('p1', { email: 'ann@example.com' })).toEqual({ list: userList('p1', 'uid-ann'), erased: false });
    expect(await r.listing('p1', { userId: 'u-ann' })).toEqual({ list: userList('p1', 'uid-ann'), erased: false });
  });

  it('no list for somebody not known', async () => {
    const { reads: r } = reads();
    expect(await r.listing('p1', { email: 'bob@example.com' })).toEqual({ list: null, erased: false });
  });

  it("an erasure's pseudonym reads the erasure's list, without asking the known users", async () => {
    const { reads: r, finds } = reads();
    expect(await r.listing('p1', { email: erasedPseudonym('era_1') })).toEqual({ list: erasedList('p1', 'era_1'), erased: true });
    expect(finds).toEqual([]);
  });
});

describe('isShown: which listed payments a read shows', () => {
  const own = { list: userList('p1', 'uid-ann'), erased: false };
  const erased = { list: erasedList('p1', 'era_1'), erased: true };

  it("a person's list shows their payments, not those an erasure anonymised since, nor gone ones", () => {
    expect(isShown(own, payment('ann@example.com'))).toBe(true);
    expect(isShown(own, payment(erasedPseudonym('era_1')))).toBe(false);
    expect(isShown(own, null)).toBe(false);
  });

  it("an erasure's list shows the payments it anonymised", () => {
    expect(isShown(erased, payment(erasedPseudonym('era_1')))).toBe(true);
    expect(isShown(erased, null)).toBe(false);
  });
});
