import type { Project, UpdateProjectRequest } from '@postbus/contracts';
import { UnprocessableError } from '@postbus/errors';
import { fromEmailProblem, type SenderDomainState } from './sender-address';

/** The client's domain of that kind with this id, or null. */
export type DomainLookup = (clientId: string, kind: 'sender' | 'tracking', id: string) => Promise<SenderDomainState | null>;

/**
 * Whether a project's domains and sender address may be saved (POST, or PATCH with `current` the
 * project as it is: what the body leaves out keeps its value). The domains must be the client's;
 * the sender address is checked against the sender domain whenever it or the sender domain changes.
 */
export async function assertProjectDomains(
  domainOf: DomainLookup,
  clientId: string,
  body: Pick<UpdateProjectRequest, 'sender_domain_id' | 'tracking_domain_id' | 'from_email'>,
  current: Pick<Project, 'sender_domain_id' | 'from_email'> | null = null,
): Promise<void> {
  const sender = body.sender_domain_id ? await domainOf(clientId, 'sender', body.sender_domain_id) : null;
  if (body.sender_domain_id && !sender) {
    throw new UnprocessableError('sender-domain-missing', "sender_domain_id names none of this client's sender domains.");
  }
  if (body.tracking_domain_id && !(await domainOf(clientId, 'tracking', body.tracking_domain_id))) {
    throw new UnprocessableError('tracking-domain-missing', "tracking_domain_id names none of this client's tracking domains.");
  }
  if (body.from_email === undefined && body.sender_domain_id === undefined) return;
  const fromEmail = body.from_email !== undefined ? body.from_email : (current?.from_email ?? null);
  if (fromEmail === null) return;
  const senderId = body.sender_domain_id !== undefined ? body.sender_domain_id : (current?.sender_domain_id ?? null);
  const problem = fromEmailProblem(fromEmail, sender ?? (senderId ? await domainOf(clientId, 'sender', senderId) : null));
  if (problem) throw new UnprocessableError('from-email-not-on-sender-domain', problem);
}
