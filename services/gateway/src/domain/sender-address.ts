/** What the sender-address rule needs to know of a sender domain. */
export interface SenderDomainState {
  id: string;
  domain: string;
  status: 'pending' | 'verified' | 'failed';
}

/** The domain part of an address, lower case, without a trailing dot. */
export const domainOf = (address: string): string => (address.slice(address.lastIndexOf('@') + 1) || '').toLowerCase().replace(/\.$/, '');

/**
 * Why mail may not be sent from this address, or undefined when it may: a client sends only as an
 * address on its own verified sender domain — the very domain, not a subdomain (the domain's DKIM
 * key and SPF are what vouch for it). Otherwise one tenant could send as another's address through
 * the relay every customer's SPF includes.
 */
export function fromEmailProblem(fromEmail: string, sender: SenderDomainState | null): string | undefined {
  const domain = domainOf(fromEmail);
  if (!sender)
    return `from_email ${fromEmail} needs a sender domain: add ${domain} (POST /v1/sender-domains), verify it and set sender_domain_id.`;
  if (domain !== sender.domain) return `from_email must be an address on the project's sender domain ${sender.domain}, not ${domain}.`;
  if (sender.status !== 'verified')
    return `from_email is on the sender domain ${sender.domain}, which is not verified: publish its DNS records and call POST /v1/sender-domains/${sender.id}/verify.`;
  return undefined;
}
