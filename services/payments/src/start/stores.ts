import { KnownUsers } from '@postbus/db';
import { PaymentRepository } from '../model/payment.repository';
import { paymentModels } from '../model/payment.schema';
import type { Infrastructure } from './infrastructure';

/** The payments service's stores: its payments and revenue, and the users the users service announced. */
export interface Stores {
  payments: PaymentRepository;
  knownUsers: KnownUsers;
}

/** Makes the stores and readies their collections; they hold nothing to undo (the database's close is). */
export async function openStores({ db }: Infrastructure): Promise<Stores> {
  const payments = new PaymentRepository(paymentModels(db));
  const knownUsers = new KnownUsers(db);
  await Promise.all([payments.init(), knownUsers.init()]);
  return { payments, knownUsers };
}
