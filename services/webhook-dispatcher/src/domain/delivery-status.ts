import type { AttemptDoc, DeliveryStatus } from '../model/delivery.repository';

/** The latest attempt of a delivery's log. */
export const lastOf = (attempts: AttemptDoc[]): AttemptDoc | undefined =>
  attempts.reduce<AttemptDoc | undefined>((a, b) => (!a || b.attempt >= a.attempt ? b : a), undefined);

/** The status an attempt log adds up to: the last attempt's outcome, pending before any. */
export function statusOf(attempts: AttemptDoc[]): DeliveryStatus {
  const last = lastOf(attempts);
  return !last || last.outcome === 'retrying' ? 'pending' : last.outcome;
}
