import { ValidationError } from '@postbus/errors';
import { averagePerPayingUser, checkRevenueRange } from './revenue';

describe('the revenue range', () => {
  it('takes a range of one day or more, however long', () => {
    expect(() => checkRevenueRange('2026-01-01', '2026-01-01')).not.toThrow();
    expect(() => checkRevenueRange('2026-01-31', '2026-02-01')).not.toThrow();
    expect(() => checkRevenueRange('2020-01-01', '2026-12-31')).not.toThrow();
  });

  it('refuses one that ends before it starts, naming `to`', () => {
    let refused: unknown;
    try {
      checkRevenueRange('2026-02-01', '2026-01-31');
    } catch (error) {
      refused = error;
    }
    expect(refused).toBeInstanceOf(ValidationError);
    expect(refused).toMatchObject({ status: 400, errors: [{ pointer: '/to' }] });
  });
});

describe('the average per paying user', () => {
  it('is the total over the paying users, in minor units to two decimals', () => {
    expect(averagePerPayingUser(1000, 4)).toBe(250);
    expect(averagePerPayingUser(1000, 3)).toBe(333.33);
    expect(averagePerPayingUser(2, 3)).toBe(0.67);
  });

  it('is 0 without paying users', () => {
    expect(averagePerPayingUser(0, 0)).toBe(0);
  });
});
