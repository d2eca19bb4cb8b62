import type { UserRef } from '@postbus/contracts';
import { erasedPseudonym } from './erasure-participant';
import { erasedList, userList } from './payment-lists';
import type { KnownUserLookup } from './ports';
import type { PaymentRecord } from './records';

/** What every pseudonym starts with: `erased:` (then the erasure's id). */
const ERASED = erasedPseudonym('');

/** The erasure an `erased:<erasure id>` address stands for; undefined for any other address, or none. */
export const erasureOfPseudonym = (email: string | undefined): string | undefined =>
  email !== undefined && email.startsWith(ERASED) ? email.slice(ERASED.length) : undefined;

/** Whether a payment was anonymised by an erasure (its email is the erasure's pseudonym). */
export const isAnonymised = (payment: Pick<PaymentRecord, 'email'>): boolean => payment.email.startsWith(ERASED);

/** The list a read of one person's payments walks, and which of its payments it shows. */
export interface PaymentListing {
  /** The list's name; null for nobody known by that name (no payments). */
  list: string | null;
  /** True for an erasure's pseudonym: its list holds only the payments that erasure anonymised. */
  erased: boolean;
}

/**
 * Whether a listed payment is shown: not one that is gone, and on a person's own list not one an
 * erasure has anonymised since it was listed (it is the erasure's now, listed under the pseudonym).
 */
export const isShown = (listing: PaymentListing, payment: PaymentRecord | null): payment is PaymentRecord =>
  payment !== null && (listing.erased || !isAnonymised(payment));

/**
 * Which payments a person's payment read lists: those of an erasure's pseudonym (`erased:<id>`,
 * the payments that erasure anonymised), else the known user's (by the users service's id, one
 * point read of the known users away), else none.
 */
export class PaymentReads {
  constructor(private readonly users: KnownUserLookup) {}

  async listing(projectId: string, ref: UserRef): Promise<PaymentListing> {
    const erasureId = erasureOfPseudonym(ref.email);
    if (erasureId !== undefined) return { list: erasedList(projectId, erasureId), erased: true };
    const known = await this.users.find(projectId, ref);
    return { list: known ? userList(projectId, known.id) : null, erased: false };
  }
}
