import type { EmailUnsuppressCommand, Suppression } from '@postbus/contracts';
import { ConflictError, NotFoundError } from '@postbus/errors';

/**
 * The command that lifts a suppression the client asked to lift (DELETE …/suppressions/{email}),
 * given the address's current suppression. A complaint stays (the recipient asked for no mail),
 * whichever of the address's reasons it is, and the mailer checks again when it lifts; an
 * unsubscribe is lifted as the others are, and the user is subscribed again: the client asserts
 * the recipient's consent.
 */
export function unsuppressCommand(
  projectId: string,
  email: string,
  current: Pick<Suppression, 'reason' | 'reasons'> | undefined,
  acceptedAt: Date,
): EmailUnsuppressCommand {
  if (!current) throw new NotFoundError('This address is not suppressed in this project.');
  if (current.reason === 'complaint' || current.reasons.some((cause) => cause.reason === 'complaint'))
    throw new ConflictError(
      'suppression-is-a-complaint',
      'The recipient reported a message as spam: mailing them again would hurt every sender on this installation. The suppression stays.',
    );
  // An unsubscribe is lifted once nothing else suppresses the address (it is then the reason shown).
  return { projectId, email, acceptedAt: acceptedAt.toISOString(), ...(current.reason === 'unsubscribed' ? { resubscribe: true } : {}) };
}
