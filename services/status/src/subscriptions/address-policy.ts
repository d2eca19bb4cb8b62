import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns';
import ipaddr from 'ipaddr.js';

/**
 * Where status webhooks may go: public unicast addresses only (anyone can subscribe one, so a
 * subscription must not become a way to reach inside our network), unless the operator allows
 * private ones (tests, a closed network). The same rule as the webhook dispatcher's AddressPolicy,
 * kept small here because a service may not import another; checked when subscribing and again at
 * connect time (a `lookup` for node:http), so a name cannot be re-pointed after the check.
 */
export class UnsafeWebhookError extends Error {
  readonly code = 'EUNSAFEADDRESS';
}

const METADATA = new Set(['169.254.169.254', 'fd00:ec2::254']);

export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  const ip = ipaddr.process(address);
  return !METADATA.has(ip.toString()) && ip.range() === 'unicast';
}

export class WebhookAddressPolicy {
  constructor(
    private readonly allowPrivate: boolean,
    private readonly resolver: typeof dnsLookup = dnsLookup,
  ) {}

  async check(url: URL): Promise<void> {
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new UnsafeWebhookError('only http and https webhooks are allowed');
    if (url.username || url.password) throw new UnsafeWebhookError('a webhook URL may not carry credentials');
    if (this.allowPrivate) return;
    const addresses = await new Promise<LookupAddress[]>((resolve, reject) =>
      this.resolver(url.hostname.replace(/^\[|\]$/g, ''), { all: true }, (error, found) =>
        error ? reject(new UnsafeWebhookError(`${url.hostname} does not resolve`)) : resolve(found),
      ),
    );
    if (addresses.length === 0 || addresses.some(({ address }) => !isPublicAddress(address))) {
      throw new UnsafeWebhookError(`${url.hostname} is not a public address`);
    }
  }

  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the callback shape net.connect passes
  readonly lookup = (hostname: string, options: object, callback: (...args: any[]) => void): void => {
    const opts: LookupOptions = typeof options === 'number' ? { family: options } : { ...(options as LookupOptions) };
    this.resolver(hostname, { ...opts, all: true }, (error, addresses) => {
      if (error) return callback(error);
      if (!this.allowPrivate && addresses.some(({ address }) => !isPublicAddress(address))) {
        return callback(new UnsafeWebhookError(`${hostname} is not a public address`));
      }
      if (opts.all) return callback(null, addresses);
      const first = addresses[0];
      if (!first) return callback(Object.assign(new Error(`${hostname} has no address`), { code: 'ENOTFOUND' }));
      callback(null, first.address, first.family);
    });
  };
}
