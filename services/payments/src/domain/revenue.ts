import { ValidationError } from '@postbus/errors';

/**
 * A revenue range is UTC days `from`..`to`, both included (YYYY-MM-DD, which compares as it
 * reads); one that ends before it starts is refused. Its length is not bounded: a read costs the
 * months that hold payments, whatever the range.
 */
export function checkRevenueRange(from: string, to: string): void {
  if (to < from) throw new ValidationError('The range ends before it starts.', [{ pointer: '/to', message: 'must not be before from' }]);
}

/** The average revenue per paying user, in minor units rounded to two decimals; 0 without paying users. */
export const averagePerPayingUser = (total: number, payingUsers: number): number =>
  payingUsers > 0 ? Math.round((total / payingUsers) * 100) / 100 : 0;
