/*
 * The ids of a message's timeline entries: a message's timeline is found by probing the ids it
 * can have (see MessageStore), so these are part of the rules, not of one store.
 */

/** The id of a message's delivery event: the outcome of attempt `attempt` (sequence attempt + 1). */
export const deliveryEventId = (messageId: string, attempt: number): string => `${messageId}:${attempt + 1}`;
/** The id of a message's n-th engagement entry (n from 1), claimed by unique insert. */
export const engagementEventId = (messageId: string, n: number): string => `${messageId}:e${n}`;
