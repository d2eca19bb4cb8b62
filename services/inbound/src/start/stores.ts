import { ReceivedMail } from '../model/received-mail.repository';
import { ReturnPathDomains } from '../model/return-path-domain.repository';
import type { Infrastructure } from './infrastructure';

export interface Stores {
  domains: ReturnPathDomains;
  received: ReceivedMail;
}

/** Nothing to undo: they live in the database, which the infrastructure closes. */
export async function openStores({ db }: Infrastructure): Promise<Stores> {
  const domains = new ReturnPathDomains(db);
  const received = new ReceivedMail(db);
  await Promise.all([domains.init(), received.init()]);
  return { domains, received };
}
