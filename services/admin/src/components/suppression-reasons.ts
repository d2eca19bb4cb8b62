import type { Suppression, SuppressionReason } from '../api/types';

/** An address's reasons, the strongest first: the one the API shows as `reason`, which decides whether it may be removed. */
export const reasonsOf = (suppression: Pick<Suppression, 'reason' | 'reasons'>): SuppressionReason[] => [
  suppression.reason,
  ...suppression.reasons.map((cause) => cause.reason).filter((reason) => reason !== suppression.reason),
];
