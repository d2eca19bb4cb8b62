import { createHash } from 'node:crypto';
import type { DeliveryDoc, DeliveryPerson } from './records';

/** The delivery of one event to one endpoint always has the same id, so a redelivered event adds nothing. */
export const deliveryIdOf = (eventId: string, endpointId: string): string =>
  `msg_${createHash('sha256').update(`${eventId}\n${endpointId}`).digest('hex').slice(0, 32)}`;

/** A delivery's attempts are numbered from 1; each is stored under `<deliveryId>:<attempt>`. */
export const attemptIdOf = (deliveryId: string, attempt: number): string => `${deliveryId}:${attempt}`;

/**
 * The deliveries whose body names one person of one project (by address, and by user_id) are
 * listed for an erasure under `person:<hash>`: the name holds a hash of project and address, never the address.
 */
export type PersonKey = { kind: 'email'; value: string } | { kind: 'user_id'; value: string };

export const personList = (projectId: string, key: PersonKey): string =>
  `person:${createHash('sha256').update(`${projectId}\n${key.kind}\n${key.value}`).digest('hex').slice(0, 40)}`;

/**
 * Whom a Postbus body is about (its project, address, user and time). A delivery in another
 * format keeps it beside its payload, which may not name them, so that an erasure still finds
 * and confirms it.
 */
export function personOf(body: { timestamp?: unknown; data?: unknown }): DeliveryPerson | undefined {
  const data = body.data as Record<string, unknown> | undefined;
  const projectId = data?.['project_id'];
  if (!data || typeof projectId !== 'string') return undefined;
  const text = (value: unknown) => (typeof value === 'string' ? value : null);
  return {
    projectId,
    email: text(data['email']),
    userId: text(data['user_id']),
    ...(typeof body.timestamp === 'string' ? { at: body.timestamp } : {}),
  };
}

/** Whom a stored delivery is about: kept beside it, or read from its (Postbus) payload. */
export function personOfDelivery(delivery: Pick<DeliveryDoc, 'payload' | 'person'>): DeliveryPerson | undefined {
  if (delivery.person) return delivery.person;
  try {
    return personOf(JSON.parse(delivery.payload) as { timestamp?: unknown; data?: unknown });
  } catch {
    return undefined; // every body is written by JSON.stringify; this is not one of ours
  }
}

/** The people a delivery is about (its project's address and user_id), as list names. */
export function personListsOf(delivery: Pick<DeliveryDoc, 'payload' | 'person'>): string[] {
  const person = personOfDelivery(delivery);
  if (!person) return [];
  const lists: string[] = [];
  if (person.email !== null) lists.push(personList(person.projectId, { kind: 'email', value: person.email }));
  if (person.userId !== null) lists.push(personList(person.projectId, { kind: 'user_id', value: person.userId }));
  return lists;
}
