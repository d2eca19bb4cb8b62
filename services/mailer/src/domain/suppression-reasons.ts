import type { Suppression, SuppressionReason } from '@postbus/contracts';

/** The reason of a suppression while an erasure is pending; it holds whatever the email says (docs/architecture.md#erasure). */
export const ERASURE = 'erasure';

/** The reason of a suppression that holds for every email, sent_to_unsubscribed ones included. */
export const isBlocking = (reason: string): boolean => reason !== 'unsubscribed';

/** Whether the client may lift a reason: never a complaint, whose recipient asked for no mail. */
export const isLiftable = (reason: string): boolean => reason !== 'complaint';

/** One reason an address gets no mail: since when, and the message whose bounce or complaint gave it. */
export interface SuppressionCause {
  reason: string;
  at: Date;
  messageId?: string | undefined;
}

// What the recipient said (a complaint) over what its mail system said (a hard bounce, then soft
// bounces) over the client's own word, and an unsubscribe last: it holds only for emails not sent to
// the unsubscribed. The strongest reason decides whether the client may lift the suppression.
const STRENGTH: Record<SuppressionReason, number> = { complaint: 0, hard_bounce: 1, soft_bounce_limit: 2, manual: 3, unsubscribed: 4 };
const rank = (reason: string): number =>
  Object.hasOwn(STRENGTH, reason) ? STRENGTH[reason as SuppressionReason] : Number.MAX_SAFE_INTEGER;

/** The strongest of an address's reasons (see STRENGTH); undefined for none. */
export function strongest<T extends { reason: string }>(causes: readonly T[]): T | undefined {
  return causes.reduce<T | undefined>(
    (best, cause) => (best === undefined || rank(cause.reason) < rank(best.reason) ? cause : best),
    undefined,
  );
}

/** Every reason once (the first of each kind stays), oldest first. */
export function accumulated(causes: readonly SuppressionCause[]): SuppressionCause[] {
  const first = new Map<string, SuppressionCause>();
  for (const cause of causes) {
    const seen = first.get(cause.reason);
    if (!seen || cause.at < seen.at) first.set(cause.reason, cause);
  }
  return [...first.values()].sort((a, b) => a.at.getTime() - b.at.getTime() || rank(a.reason) - rank(b.reason));
}

/**
 * An address's suppression as the client reads it, or null when it has no reason: every reason with
 * its time and message, oldest first; the strongest one and its message; and since when the address
 * is suppressed (its first reason, by which the list is ordered).
 */
export function suppressionView(email: string, causes: readonly SuppressionCause[]): Suppression | null {
  const reasons = accumulated(causes);
  const shown = strongest(reasons);
  if (!shown) return null;
  return {
    email,
    reason: shown.reason as SuppressionReason,
    created_at: reasons[0]!.at.toISOString(),
    message_id: shown.messageId ?? null,
    reasons: reasons.map((cause) => ({
      reason: cause.reason as SuppressionReason,
      created_at: cause.at.toISOString(),
      message_id: cause.messageId ?? null,
    })),
  };
}
