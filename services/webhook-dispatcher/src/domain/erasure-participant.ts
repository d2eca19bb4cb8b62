import type { MessageContext } from '@postbus/bus';
import type { ErasureExecuteCommand } from '@postbus/contracts';
import type { DeliveryLog } from './ports';
import { personList, personOfDelivery } from './delivery-keys';
import type { DeliveryDoc } from './records';

type Subject = Pick<ErasureExecuteCommand, 'projectId' | 'email' | 'userId' | 'before'>;

/**
 * Whether a delivery is about this person in this project, from before the erasure ran (a later
 * event is about someone new with the same address); the person's lists only find candidates.
 */
export function concerns(delivery: Pick<DeliveryDoc, 'payload' | 'person'>, { projectId, email, userId, before }: Subject): boolean {
  const person = personOfDelivery(delivery);
  if (!person || person.projectId !== projectId) return false;
  if (person.at !== undefined && Date.parse(person.at) > Date.parse(before)) return false;
  return (email !== null && person.email === email) || (userId !== null && person.userId === userId);
}

export interface DeliveryErasureDeps {
  deliveries: Pick<DeliveryLog, 'erasePerson'>;
}

/**
 * The dispatcher's part in a GDPR erasure (docs/architecture.md#erasure): every delivery whose body names the person,
 * with its attempts (whose responses may echo the body) and its due attempts. The deliveries are
 * found through the person's lists (by address, by user_id; appended as each delivery was stored),
 * and deleted in chunks of point deletes as each list is trimmed, so an erasure of a person with
 * tens of thousands of deliveries neither scans nor names them all in one statement, and resumes
 * where it stopped when redelivered. Idempotent.
 */
export class DeliveryErasure {
  constructor(private readonly deps: DeliveryErasureDeps) {}

  /** erasure.execute: deletes the person's deliveries with their attempts; returns what went, by kind. */
  async erase(subject: ErasureExecuteCommand, ctx?: Pick<MessageContext, 'heartbeat'>): Promise<Record<string, number>> {
    const total = { deliveries: 0, attempts: 0 };
    const lists = [
      ...(subject.email !== null ? [personList(subject.projectId, { kind: 'email', value: subject.email })] : []),
      ...(subject.userId !== null ? [personList(subject.projectId, { kind: 'user_id', value: subject.userId })] : []),
    ];
    const erased = new Set<string>();
    for (const list of lists) {
      // The broker hears from this consumer after each chunk, however long the erasure takes.
      const gone = await this.deps.deliveries.erasePerson(
        list,
        new Date(subject.before),
        (delivery) => concerns(delivery, subject),
        ctx?.heartbeat,
        erased,
      );
      total.deliveries += gone.deliveries;
      total.attempts += gone.attempts;
    }
    return total;
  }
}
