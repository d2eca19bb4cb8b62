import type { ErasureExecuteCommand } from '@postbus/contracts';
import type { UserName } from '@postbus/db';
import type { Logger } from '@postbus/logger';
import { userList } from './payment-lists';
import type { KnownUserStore, PaymentErasureStore } from './ports';

export interface PaymentErasureDeps {
  payments: PaymentErasureStore;
  users: KnownUserStore;
  logger: Logger;
}

/**
 * What stands for an erased person in their payments: derived from the erasure's id alone, so it
 * says nothing about them, yet their payments still count as one paying user.
 */
export const erasedPseudonym = (erasureId: string): string => `erased:${erasureId}`;

/**
 * The payments service's part in an erasure (docs/architecture.md#erasure). Payments stay in the revenue, so they are
 * anonymised rather than deleted (through the person's payment list, in chunks of point updates);
 * the known-user entries go. Idempotent and resumable: the execute command comes again until every
 * service has confirmed. Logs name the erasure, never the person.
 */
export class PaymentErasure {
  constructor(private readonly deps: PaymentErasureDeps) {}

  async erase(subject: ErasureExecuteCommand): Promise<Record<string, number>> {
    const { projectId, erasureId } = subject;
    const { uids, names } = await this.person(subject);
    // Payments recorded after the erasure ran belong to someone new with the same address.
    const anonymised = await this.deps.payments.anonymise(
      projectId,
      [...uids],
      erasureId,
      erasedPseudonym(erasureId),
      new Date(subject.before),
    );
    // Only the entries that still name this person (another user may have the address by now).
    let forgotten = 0;
    for (const name of names) {
      const known = await this.deps.users.find(projectId, name);
      if (known && uids.has(known.id)) forgotten += await this.deps.users.forget(projectId, [name], null);
    }
    this.deps.logger.info('payments anonymised for an erasure', { erasureId, payments: anonymised, knownUsers: forgotten });
    return { payments_anonymised: anonymised, known_users: forgotten };
  }

  /**
   * The person's ids (the users service's) and every name of them: the subject's, those this
   * service learnt (point reads by name), and those on their latest payment. Only a subject named
   * by id alone, with no payment, costs a read of the known users by id.
   */
  private async person(subject: ErasureExecuteCommand): Promise<{ uids: Set<string>; names: UserName[] }> {
    const { projectId } = subject;
    const names = new Map<string, UserName>();
    const add = (name: UserName) => {
      if (name.email) names.set(`email:${name.email}`, { email: name.email });
      if (name.userId) names.set(`uid:${name.userId}`, { userId: name.userId });
    };
    add(subject);
    const uids = new Set<string>(subject.id !== null ? [subject.id] : []);
    for (const name of [...names.values()]) {
      const known = await this.deps.users.find(projectId, name);
      if (known) {
        uids.add(known.id);
        add(known);
      }
    }
    for (const uid of uids) {
      const [latest] = await this.deps.payments.page(projectId, userList(projectId, uid), 1);
      if (latest?.payment) add(latest.payment);
      if (names.size === 0) for (const known of await this.deps.users.byId(projectId, uid)) add(known);
    }
    return { uids, names: [...names.values()] };
  }
}
