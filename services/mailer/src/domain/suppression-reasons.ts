/** The reason of a suppression while an erasure is pending; it holds whatever the email says (docs/architecture.md#erasure). */
export const ERASURE = 'erasure';

/** The reason of a suppression that holds for every email, sent_to_unsubscribed ones included. */
export const isBlocking = (reason: string): boolean => reason !== 'unsubscribed';
