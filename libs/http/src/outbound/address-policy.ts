import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns';
import ipaddr from 'ipaddr.js';

/** A webhook URL the dispatcher will not send to; the message says why (an address only when the URL itself holds it). */
export class UnsafeAddressError extends Error {
  readonly code = 'EUNSAFEADDRESS';
  constructor(message: string) {
    super(message);
    this.name = 'UnsafeAddressError';
  }
}

/** Cloud instance metadata services: reachable from inside most clouds, never a webhook receiver. */
const METADATA = new Set(['169.254.169.254', 'fd00:ec2::254']);

/** How a refused range reads in a message ("10.0.0.1 is a private address"). */
const RANGE_NAMES: Record<string, string> = {
  private: 'a private',
  loopback: 'a loopback',
  linkLocal: 'a link-local',
  uniqueLocal: 'a unique-local',
  unspecified: 'an unspecified',
  carrierGradeNat: 'a carrier-grade NAT',
  multicast: 'a multicast',
  broadcast: 'a broadcast',
  reserved: 'a reserved',
};

/** The canonical text of an IP literal (IPv4-mapped IPv6 as IPv4), or undefined for a host name. */
function canonicalIp(host: string): string | undefined {
  const bare = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
  return ipaddr.isValid(bare) ? ipaddr.process(bare).toString() : undefined;
}

/** A host name as compared with the allowed list: lower case, no trailing dot, IPs canonical. */
function normaliseHost(host: string): string {
  const lower = host.trim().toLowerCase().replace(/\.$/, '');
  return canonicalIp(lower) ?? lower;
}

const NAT64 = ipaddr.parseCIDR('64:ff9b::/96');

/**
 * What makes an address unfit to send to ("a private address"), or undefined for a public unicast
 * address. Anything ipaddr.js does not call `unicast` is refused (the ranges above and the other
 * special-purpose ones: documentation, benchmarking, 6to4, Teredo…), except NAT64 (64:ff9b::/96),
 * which is judged by the IPv4 address it embeds.
 */
export function unsafeKind(address: string, { revealEmbedded = true } = {}): string | undefined {
  if (!ipaddr.isValid(address)) return 'not an IP address';
  const ip = ipaddr.process(address);
  if (METADATA.has(ip.toString())) return 'a cloud metadata address';
  const range = ip.range();
  if (range === 'unicast') return undefined;
  if (ip.kind() === 'ipv6' && (ip as ipaddr.IPv6).match(NAT64)) {
    const embedded = ip.toByteArray().slice(-4).join('.');
    const inner = unsafeKind(embedded);
    if (!inner) return undefined;
    return revealEmbedded ? `a NAT64 address of ${embedded}, ${inner}` : `a NAT64 address of ${inner}`;
  }
  return `${RANGE_NAMES[range] ?? `a special-purpose (${range})`} address`;
}

/** The ports an allowed-hosts entry admits its host on: every port, or the ranges listed. */
type AdmittedPorts = 'any' | Array<[number, number]>;

const PORT_SUFFIX = /^(.*):(\d{1,5})(?:-(\d{1,5}))?$/;

/**
 * One WEBHOOK_ALLOWED_HOSTS entry: `host` (every port), `host:port` or `host:first-last`; an IPv6
 * address takes a port in brackets (`[::1]:9000`).
 */
export function parseAllowedHost(entry: string): { host: string; ports: AdmittedPorts } {
  const text = entry.trim();
  if (canonicalIp(text) !== undefined && !text.startsWith('[')) return { host: normaliseHost(text), ports: 'any' };
  const match = PORT_SUFFIX.exec(text);
  if (!match) return { host: normaliseHost(text), ports: 'any' };
  const first = Number(match[2]);
  const last = match[3] === undefined ? first : Number(match[3]);
  if (first < 1 || last > 65_535 || last < first) throw new Error(`WEBHOOK_ALLOWED_HOSTS: ${text} names no valid port range`);
  return { host: normaliseHost(match[1]!), ports: [[first, last]] };
}

/** The port a URL connects to (its explicit one, else the scheme's). */
const portOf = (url: URL): number => (url.port ? Number(url.port) : url.protocol === 'https:' ? 443 : 80);

type LookupCallback = (error: NodeJS.ErrnoException | null, address?: string | LookupAddress[], family?: number) => void;

/**
 * Where webhooks may be sent: public unicast addresses only, unless the host (and port) is one the
 * operator admits (WEBHOOK_ALLOWED_HOSTS: `host`, `host:port` or `host:first-last`). `check` is asked
 * before an endpoint is saved, with the URL's port; `lookup` is given to the HTTP client so that the
 * same rule holds at connect time, whatever the name resolves to then. The lookup is not told the
 * port: there a host admitted on some port passes, the port having been checked when the URL was saved.
 */
export class AddressPolicy {
  private readonly allowed = new Map<string, AdmittedPorts>();

  constructor(
    allowedHosts: string[],
    /** dns.lookup; tests pass a table. */
    private readonly resolver: typeof dnsLookup = dnsLookup,
  ) {
    for (const entry of allowedHosts) {
      if (entry.trim() === '') continue;
      const { host, ports } = parseAllowedHost(entry);
      const known = this.allowed.get(host);
      this.allowed.set(host, known === 'any' || ports === 'any' ? 'any' : [...(known ?? []), ...ports]);
    }
  }

  /** Whether the operator admitted this host name or IP address (on this port; any port when not given). */
  private admits(host: string, port?: number): boolean {
    const ports = this.allowed.get(normaliseHost(host));
    if (ports === undefined) return false;
    return ports === 'any' || port === undefined || ports.some(([first, last]) => port >= first && port <= last);
  }

  /** Refuses what a webhook may not be sent to, resolving a host name (all its addresses) first. */
  async check(url: URL): Promise<void> {
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      throw new UnsafeAddressError(`${url.protocol.replace(/:$/, '')} URLs are not allowed; use http or https`);
    }
    const host = url.hostname;
    if (host === '') throw new UnsafeAddressError('the URL has no host');
    const port = portOf(url);
    if (this.admits(host, port)) return;
    const literal = canonicalIp(host);
    if (literal !== undefined) {
      const kind = unsafeKind(literal);
      if (kind) throw new UnsafeAddressError(`${literal} is ${kind}`);
      return;
    }
    const addresses = await this.resolve(host);
    this.refuseUnsafe(host, addresses, port);
  }

  /**
   * A `lookup` for net/http (the signature of dns.lookup, `options.all` included): it resolves and
   * refuses unsafe addresses as `check` does, so that a name cannot be re-pointed at an internal
   * address between the check and the connection.
   */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the callback shape net.connect passes
  readonly lookup = (hostname: string, options: object, callback: (...args: any[]) => void): void => {
    const opts: LookupOptions = typeof options === 'number' ? { family: options } : { ...(options as LookupOptions) };
    const cb = callback as LookupCallback;
    const all = opts.all === true;
    this.resolver(hostname, { ...opts, all: true }, (error, addresses) => {
      if (error) return cb(error);
      if (!this.admits(hostname)) {
        try {
          this.refuseUnsafe(hostname, addresses);
        } catch (refused) {
          return cb(refused as NodeJS.ErrnoException);
        }
      }
      if (all) return cb(null, addresses);
      const first = addresses[0];
      if (!first) return cb(Object.assign(new Error(`${hostname} has no address`), { code: 'ENOTFOUND' }));
      cb(null, first.address, first.family);
    });
  };

  private resolve(host: string): Promise<LookupAddress[]> {
    return new Promise((resolve, reject) => {
      this.resolver(host, { all: true }, (error, addresses) => {
        if (!error) return resolve(addresses);
        if (error.code === 'ENOTFOUND' || error.code === 'ENODATA') reject(new UnsafeAddressError(`${host} does not resolve`));
        else reject(error);
      });
    });
  }

  /**
   * The refusal says what kind of address the name resolves to, never the address: DNS answers from
   * inside the network are none of the caller's business (a probe could map it with them).
   */
  private refuseUnsafe(host: string, addresses: LookupAddress[], port?: number): void {
    if (addresses.length === 0) throw new UnsafeAddressError(`${host} does not resolve`);
    for (const { address } of addresses) {
      if (this.admits(address, port)) continue;
      const kind = unsafeKind(address, { revealEmbedded: false });
      if (kind) throw new UnsafeAddressError(`${host} resolves to ${kind}`);
    }
  }
}
