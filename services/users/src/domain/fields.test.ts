import { planFieldChanges, uidKeyOf } from './fields';

describe('planFieldChanges', () => {
  it('puts standard attributes at the top, custom fields under fields, and null removes', () => {
    expect(planFieldChanges({ name: 'Ann', plan: 'pro', age: null, coupon: null, user_id: 'u1' })).toEqual({
      set: { name: 'Ann', 'fields.plan': 'pro', age: null },
      unset: ['fields.coupon'],
      userId: 'u1',
      changed: ['name', 'plan', 'age', 'coupon', 'user_id'],
    });
  });

  it('keys users without a user_id by their email so the unique index holds', () => {
    expect(uidKeyOf('a@b.co', null)).toBe('email:a@b.co');
    expect(uidKeyOf('a@b.co', 'u1')).toBe('uid:u1');
  });
});
