import { fieldsThatChange, planFieldChanges, refKey, uidKeyOf } from './fields';

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

describe('fieldsThatChange', () => {
  const current = { userId: 'u1', name: 'Ann', age: 40, country: null, fields: { plan: 'pro', tags: ['a', 'b'] } };

  it('leaves out what the user holds already, custom values compared deeply', () => {
    expect(
      fieldsThatChange(current, { name: 'Ann', age: 40, plan: 'pro', tags: ['a', 'b'], user_id: 'u1', country: null, gone: null }),
    ).toEqual({});
  });

  it('keeps every field whose value differs, removals of held values included', () => {
    expect(fieldsThatChange(current, { name: 'Anne', age: 41, plan: null, tags: ['a'], user_id: 'u2', country: 'NL', extra: 1 })).toEqual({
      name: 'Anne',
      age: 41,
      plan: null,
      tags: ['a'],
      user_id: 'u2',
      country: 'NL',
      extra: 1,
    });
  });
});

describe('refKey', () => {
  it('names a user by email, or by user_id when the ref has no email', () => {
    expect(refKey({ email: 'a@b.co' })).toBe('email:a@b.co');
    expect(refKey({ userId: 'u1' })).toBe('uid:u1');
    expect(refKey({ email: 'a@b.co', userId: 'u1' })).toBe('email:a@b.co');
  });
});
