import { canonicalIp, portOf, unsafeKind, UnsafeAddressError, type AddressPolicy } from '@postbus/http/address-policy';

/**
 * The ports a webhook subscriber may receive on: the web's. Anyone can subscribe a URL, and the
 * page then connects to it on every incident; on any other port that would make it knock on mail
 * servers, databases and admin consoles, ours or someone else's, whenever asked to.
 */
export const WEBHOOK_PORTS: readonly number[] = [80, 443];

const MAX_URL_LENGTH = 2048;

/**
 * What is wrong with a URL someone wants status notifications sent to, one message per problem
 * (empty: it may be subscribed). Without a policy (STATUS_WEBHOOK_ALLOW_PRIVATE) every address and
 * port is admitted; with one, hosts it admits may use the ports it admits them on.
 */
export async function webhookUrlProblems(raw: string, policy: AddressPolicy | undefined): Promise<{ url?: URL; problems: string[] }> {
  if (raw.length > MAX_URL_LENGTH) return { problems: [`is longer than ${MAX_URL_LENGTH} characters`] };
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { problems: ['is not an absolute URL'] };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return { problems: ['must be an http or https URL'] };
  if (url.username || url.password) return { problems: ['may not carry credentials'] };
  if (!policy) return { url, problems: [] };
  const problems: string[] = [];
  try {
    await policy.check(url);
  } catch (error) {
    if (!(error instanceof UnsafeAddressError)) problems.push(`${url.hostname} could not be resolved; try again later`);
    else problems.push(error.reason === 'address' ? `${error.message}, not a public address` : error.message);
  }
  const port = portOf(url);
  if (!WEBHOOK_PORTS.includes(port) && !policy.admits(url.hostname, port)) {
    problems.push(`port ${port} is not allowed: webhooks are sent to port 80 (http) or 443 (https) only`);
  }
  return problems.length === 0 ? { url, problems } : { problems };
}

/**
 * Whether a subscribed URL may still be sent to, as far as can be told without DNS: its port, and
 * its address when the URL holds one (a connection to an IP literal asks no lookup, so the policy's
 * connect-time check never sees it). A subscriber saved under an older, laxer rule is not notified.
 */
export function sendableWebhookUrl(url: URL, policy: AddressPolicy | undefined): boolean {
  if (!policy) return true;
  const port = portOf(url);
  if (policy.admits(url.hostname, port)) return true;
  if (!WEBHOOK_PORTS.includes(port)) return false;
  const literal = canonicalIp(url.hostname);
  return literal === undefined || unsafeKind(literal) === undefined;
}
