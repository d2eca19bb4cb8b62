/** What one attempt came to: the receiver took it, it will be tried again, or it was the last. */
export type AttemptOutcome = 'succeeded' | 'retrying' | 'failed';

export type DeliveryStatus = 'pending' | 'succeeded' | 'failed';

/** What the status of a delivery is read from: each attempt's number and outcome. */
interface AttemptResult {
  attempt: number;
  outcome: AttemptOutcome;
}

/** The latest attempt of a delivery's log. */
export const lastOf = <A extends AttemptResult>(attempts: A[]): A | undefined =>
  attempts.reduce<A | undefined>((a, b) => (!a || b.attempt >= a.attempt ? b : a), undefined);

/** The status an attempt log adds up to: the last attempt's outcome, pending before any. */
export function statusOf(attempts: AttemptResult[]): DeliveryStatus {
  const last = lastOf(attempts);
  return !last || last.outcome === 'retrying' ? 'pending' : last.outcome;
}
