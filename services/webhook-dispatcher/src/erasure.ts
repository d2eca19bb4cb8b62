import type { ErasureExecuteCommand } from '@postbus/contracts';
import type { DeliveryStore } from './model/deliveries';

type Subject = Pick<ErasureExecuteCommand, 'projectId' | 'email' | 'userId' | 'before'>;

const escapeRegex = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * A regular expression for bodies holding any of these values as a JSON string (quotes included,
 * as `JSON.stringify` writes them), or undefined when there is none to look for.
 */
export function jsonStringPattern(values: Array<string | null>): string | undefined {
  const present = values.filter((v): v is string => v !== null);
  return present.length > 0 ? present.map((v) => escapeRegex(JSON.stringify(v))).join('|') : undefined;
}

/**
 * Whether a webhook body is about this person in this project, from before the erasure ran (a
 * later event is about someone new with the same address); the pattern only finds candidates.
 */
export function concerns(payload: string, { projectId, email, userId, before }: Subject): boolean {
  let body: { timestamp?: string; data?: Record<string, unknown> };
  try {
    body = JSON.parse(payload) as typeof body;
  } catch {
    return false; // every body is written by JSON.stringify; this is not one of ours
  }
  const data = body.data;
  if (!data || data['project_id'] !== projectId) return false;
  if (body.timestamp !== undefined && Date.parse(body.timestamp) > Date.parse(before)) return false;
  return (email !== null && data['email'] === email) || (userId !== null && data['user_id'] === userId);
}

/**
 * The dispatcher's part in a GDPR erasure (DESIGN §5): every delivery whose body names the person,
 * with its attempts (whose responses may echo the body) and its due attempts. Idempotent.
 */
export function eraseDeliveries(deliveries: DeliveryStore): (subject: ErasureExecuteCommand) => Promise<Record<string, number>> {
  return async (subject) => {
    const pattern = jsonStringPattern([subject.email, subject.userId]);
    if (pattern === undefined) return { deliveries: 0, attempts: 0 };
    // A scan of the bodies; erasures are rare, and on FerretDB every find scans anyway.
    const ids = await deliveries.idsMatching(pattern, (payload) => concerns(payload, subject));
    return deliveries.delete(ids);
  };
}
