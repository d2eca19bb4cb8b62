import type { KnownUser, UserName } from '@postbus/db';
import type { PaymentRecord } from './records';

/** A payment a command records: the store adds its `_id`, its day, when it was recorded and whether it is rolled up. */
export type NewPayment = Omit<PaymentRecord, '_id' | 'day' | 'recordedAt' | 'rolledUp'>;

/** One entry of a payment list with the payment it names (null when it is gone). */
export interface ListedPayment {
  seq: number;
  at: Date;
  payment: PaymentRecord | null;
}

/** What recording a payment needs of the payments' store (model/payment.repository.ts). */
export interface PaymentCommandStore {
  /** 'duplicate' when this project already has that payment_id. */
  insert(payment: NewPayment, now: Date): Promise<PaymentRecord | 'duplicate'>;
  byId(projectId: string, paymentId: string): Promise<PaymentRecord | null>;
  /** Puts the stored payment on its user's list and into the revenue ('maybe-seen': a redelivery may have done it). */
  recorded(payment: PaymentRecord, known: 'new' | 'maybe-seen'): Promise<void>;
}

/** What an erasure needs of the payments' store (model/payment.repository.ts). */
export interface PaymentErasureStore {
  /** A page of a payment list, newest first. */
  page(projectId: string, list: string, limit: number, beforeSeq?: number): Promise<ListedPayment[]>;
  /** Strips the users' payments recorded up to `recordedBefore` of everything personal, under `pseudonym`; returns how many changed. */
  anonymise(projectId: string, uids: string[], erasureId: string, pseudonym: string, recordedBefore: Date): Promise<number>;
}

/** The users the users service announced, as this service learnt them (`KnownUsers` of libs/db): a payment may only name those. */
export interface KnownUserLookup {
  /** The user named by email (or, without one, by user_id). */
  find(projectId: string, name: UserName): Promise<KnownUser | null>;
}

/** What an erasure needs of the known users: also every entry of a user, and forgetting names. */
export interface KnownUserStore extends KnownUserLookup {
  /** Every entry of a user (by the users service's id). */
  byId(projectId: string, id: string): Promise<KnownUser[]>;
  /** Forgets the names given; with an id, only the entries of that user. Returns how many went. */
  forget(projectId: string, names: UserName[], id: string | null): Promise<number>;
}
