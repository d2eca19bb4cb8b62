import { createHash } from 'node:crypto';

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

/** The people a webhook body names (its project's address and user_id), as list names. */
export function personListsOf(payload: string): string[] {
  let data: Record<string, unknown> | undefined;
  try {
    data = (JSON.parse(payload) as { data?: Record<string, unknown> }).data;
  } catch {
    return []; // every body is written by JSON.stringify; this is not one of ours
  }
  const projectId = data?.['project_id'];
  if (!data || typeof projectId !== 'string') return [];
  const lists: string[] = [];
  if (typeof data['email'] === 'string') lists.push(personList(projectId, { kind: 'email', value: data['email'] }));
  if (typeof data['user_id'] === 'string') lists.push(personList(projectId, { kind: 'user_id', value: data['user_id'] }));
  return lists;
}
