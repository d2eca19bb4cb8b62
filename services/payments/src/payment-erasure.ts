import type { ErasureExecuteCommand } from '@postbus/contracts';
import type { KnownUsers, UserName } from '@postbus/db';
import type { Logger } from '@postbus/logger';
import type { PaymentRepository } from './model/payment.repository';

/**
 * What stands for an erased person in their payments: derived from the erasure's id alone, so it
 * says nothing about them, yet their payments still count as one paying user.
 */
export const erasedPseudonym = (erasureId: string): string => `erased:${erasureId}`;

/**
 * The payments service's part in an erasure (DESIGN §5). Payments stay in the revenue, so they are
 * anonymised rather than deleted; the known-user entries go. Idempotent: the execute command comes
 * again until every service has confirmed. Logs name the erasure, never the person.
 */
export class PaymentErasure {
  constructor(private readonly deps: { payments: PaymentRepository; users: KnownUsers; logger: Logger }) {}

  async erase(subject: ErasureExecuteCommand): Promise<Record<string, number>> {
    const { projectId, erasureId } = subject;
    // Every name of the person: the subject's, and those this service learnt for the users service's id.
    const names: UserName[] = [
      { email: subject.email, userId: subject.userId },
      ...(subject.id !== null ? await this.deps.users.byId(projectId, subject.id) : []),
    ];
    // Payments recorded after the erasure ran belong to someone new with the same address.
    const anonymised = await this.deps.payments.anonymise(projectId, names, erasedPseudonym(erasureId), new Date(subject.before));
    const forgotten = await this.deps.users.forget(projectId, names, subject.id);
    this.deps.logger.info('payments anonymised for an erasure', { erasureId, payments: anonymised, knownUsers: forgotten });
    return { payments_anonymised: anonymised, known_users: forgotten };
  }
}
