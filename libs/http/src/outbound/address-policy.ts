import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns';

/**
 * Why a URL was refused: its scheme, a missing host, a name that does not resolve, or an address
 * (the URL's own or one its name resolves to) that is not a public unicast address.
 */
export type UnsafeReason = 'scheme' | 'host' | 'unresolved' | 'address';

/** A URL the service will not send to; the message says why (an address only when the URL itself holds it). */
export class UnsafeAddressError extends Error {
  readonly code = 'EUNSAFEADDRESS';
  constructor(
    message: string,
    readonly reason: UnsafeReason = 'address',
  ) {
    super(message);
    this.name = 'UnsafeAddressError';
  }
}

/** An IP address as its bytes: 4 for IPv4, 16 for IPv6. */
type Bytes = readonly number[];

/**
 * One part of an IPv4 address as the WHATWG URL parser and inet_aton read it: decimal, `0x` hex
 * (`0x` alone is 0) or `0`-led octal. `http://0x7f.1/` is 127.0.0.1 to both, so to this too.
 */
function ipv4Part(text: string): number | undefined {
  if (/^0x[0-9a-f]*$/i.test(text)) return text.length === 2 ? 0 : parseInt(text.slice(2), 16);
  if (/^0[0-7]+$/.test(text)) return parseInt(text.slice(1), 8);
  if (/^(0|[1-9]\d*)$/.test(text)) return Number(text);
  return undefined;
}

/** `a.b.c.d`, and the shorter forms (`a.b.c`, `a.b`, `a`) whose last part fills the remaining bytes. */
function parseIPv4(text: string): Bytes | undefined {
  const parts = text.endsWith('.') ? text.slice(0, -1).split('.') : text.split('.');
  if (parts.length === 0 || parts.length > 4) return undefined;
  const numbers = parts.map(ipv4Part);
  if (numbers.some((n) => n === undefined || !Number.isSafeInteger(n))) return undefined;
  const values = numbers as number[];
  const last = values.pop()!;
  if (values.some((n) => n > 255) || last >= 256 ** (4 - values.length)) return undefined;
  const tail = [3, 2, 1, 0].slice(values.length).map((shift) => Math.floor(last / 256 ** shift) % 256);
  return [...values, ...tail];
}

/** The dotted quad that may end an IPv6 address (`::ffff:10.0.0.1`): four decimal parts only. */
function parseDottedQuad(text: string): Bytes | undefined {
  const match = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(text);
  const bytes = match?.slice(1).map(Number);
  return bytes && bytes.every((b) => b <= 255) ? bytes : undefined;
}

function parseIPv6(text: string): Bytes | undefined {
  if (!/^[0-9a-f:.]+$/i.test(text)) return undefined;
  const halves = text.split('::');
  if (halves.length > 2) return undefined;
  const groups = (part: string) => (part === '' ? [] : part.split(':'));
  const head = groups(halves[0]!);
  const tail = halves.length === 2 ? groups(halves[1]!) : [];
  const last = halves.length === 2 ? tail : head;
  let embedded: Bytes = [];
  if (last.at(-1)?.includes('.')) {
    const quad = parseDottedQuad(last.pop()!);
    if (!quad) return undefined;
    embedded = quad;
  }
  if ([...head, ...tail].some((group) => !/^[0-9a-f]{1,4}$/i.test(group))) return undefined;
  const words = head.length + tail.length + embedded.length / 2;
  if (halves.length === 1 ? words !== 8 : words > 7) return undefined;
  const bytesOf = (list: string[]) => list.flatMap((group) => [parseInt(group, 16) >> 8, parseInt(group, 16) & 0xff]);
  return [...bytesOf(head), ...new Array<number>(2 * (8 - words)).fill(0), ...bytesOf(tail), ...embedded];
}

/**
 * The bytes of an IP address written as text (IPv4 in any form the URL parser accepts; IPv6 with
 * or without brackets and zone), or undefined for anything else, such as a host name.
 */
export function parseIpAddress(text: string): Bytes | undefined {
  const bare = text.startsWith('[') && text.endsWith(']') ? text.slice(1, -1) : text;
  if (bare.includes(':')) return parseIPv6(bare.replace(/%.*$/, ''));
  return parseIPv4(bare);
}

/** IPv4 as a dotted quad; IPv6 in RFC 5952's form (lower case, the longest run of zero words as `::`). */
export function formatIpAddress(bytes: Bytes): string {
  if (bytes.length === 4) return bytes.join('.');
  const words = [0, 1, 2, 3, 4, 5, 6, 7].map((i) => (bytes[2 * i]! << 8) | bytes[2 * i + 1]!);
  let [bestStart, bestLength] = [-1, 1];
  for (let i = 0; i < 8;) {
    let j = i;
    while (j < 8 && words[j] === 0) j++;
    if (j - i > bestLength) [bestStart, bestLength] = [i, j - i];
    i = j === i ? i + 1 : j;
  }
  const hex = (list: number[]) => list.map((w) => w.toString(16)).join(':');
  if (bestStart < 0) return hex(words);
  return `${hex(words.slice(0, bestStart))}::${hex(words.slice(bestStart + bestLength))}`;
}

const isMapped = (bytes: Bytes): boolean =>
  bytes.length === 16 && bytes.slice(0, 10).every((b) => b === 0) && bytes[10] === 0xff && bytes[11] === 0xff;

/**
 * The canonical text of an IP literal, or undefined for a host name. An IPv4-mapped IPv6 address
 * (`::ffff:10.0.0.1`) is its IPv4 address: a socket connects to that very host.
 */
export function canonicalIp(host: string): string | undefined {
  const bytes = parseIpAddress(host);
  if (!bytes) return undefined;
  return formatIpAddress(isMapped(bytes) ? bytes.slice(12) : bytes);
}

/** `prefix/bits` in CIDR notation, and whether an address lies in it. */
interface Cidr {
  bytes: Bytes;
  bits: number;
}

function cidr(text: string): Cidr {
  const [address, bits] = text.split('/');
  return { bytes: parseIpAddress(address!)!, bits: Number(bits) };
}

function within(bytes: Bytes, range: Cidr): boolean {
  if (bytes.length !== range.bytes.length) return false;
  for (let bit = 0; bit < range.bits; bit += 8) {
    const mask = range.bits - bit >= 8 ? 0xff : (0xff << (8 - (range.bits - bit))) & 0xff;
    if ((bytes[bit / 8]! & mask) !== (range.bytes[bit / 8]! & mask)) return false;
  }
  return true;
}

const ranges = (list: Array<[string, string]>) => list.map(([text, kind]) => ({ ...cidr(text), kind }));

/** Cloud instance metadata services: reachable from inside most clouds, never a receiver. */
const METADATA = ranges([
  ['169.254.169.254/32', 'a cloud metadata address'],
  ['fd00:ec2::254/128', 'a cloud metadata address'],
]);

/**
 * IPv4 addresses that are not public unicast (IANA's special-purpose registry), first match wins.
 * 192.0.0.0/24 holds the protocol assignments (DS-Lite, NAT64 discovery…).
 */
const IPV4_SPECIAL = ranges([
  ['0.0.0.0/8', 'an unspecified address'],
  ['10.0.0.0/8', 'a private address'],
  ['172.16.0.0/12', 'a private address'],
  ['192.168.0.0/16', 'a private address'],
  ['100.64.0.0/10', 'a carrier-grade NAT address'],
  ['127.0.0.0/8', 'a loopback address'],
  ['169.254.0.0/16', 'a link-local address'],
  ['192.0.0.0/24', 'an IETF protocol assignment address'],
  ['192.0.2.0/24', 'a documentation address'],
  ['198.51.100.0/24', 'a documentation address'],
  ['203.0.113.0/24', 'a documentation address'],
  ['198.18.0.0/15', 'a benchmarking address'],
  ['192.88.99.0/24', 'a 6to4 relay anycast address'],
  ['224.0.0.0/4', 'a multicast address'],
  ['255.255.255.255/32', 'a broadcast address'],
  ['240.0.0.0/4', 'a reserved address'],
]);

/**
 * IPv6 ranges refused whatever they hold. The local-use NAT64 prefix is translated by the
 * operator's own gateway to whatever IPv4 network it serves, and where its IPv4 address sits
 * depends on the prefix length chosen there, so no embedded address can be trusted. Teredo and
 * ORCHID addresses are tunnels or identifiers, never a webhook receiver's own address.
 */
const IPV6_SPECIAL = ranges([
  ['::/128', 'an unspecified address'],
  ['::1/128', 'a loopback address'],
  ['::ffff:0:0:0/96', 'an IPv4-translated address'],
  ['64:ff9b:1::/48', 'a local-use NAT64 address'],
  ['100::/64', 'a discard-only address'],
  ['2001::/32', 'a Teredo address'],
  ['2001:2::/48', 'a benchmarking address'],
  ['2001:db8::/32', 'a documentation address'],
  ['2001:10::/28', 'an ORCHID address'],
  ['2001:20::/28', 'an ORCHID address'],
  ['2001::/23', 'an IETF protocol assignment address'],
  ['3fff::/20', 'a documentation address'],
  ['5f00::/16', 'a segment routing address'],
  ['fc00::/7', 'a unique-local address'],
  ['fe80::/10', 'a link-local address'],
  ['fec0::/10', 'a site-local address'],
  ['ff00::/8', 'a multicast address'],
]);

/** Every public IPv6 unicast address is in 2000::/3; the rest of the space is reserved. */
const GLOBAL_UNICAST = cidr('2000::/3');

/**
 * IPv6 forms that carry an IPv4 address, and where: such an address reaches the IPv4 host, so it
 * is judged by it. Only NAT64's well-known prefix is allowed when what it embeds is public; the
 * IPv4-compatible form (deprecated, RFC 4291) and 6to4 (deprecated, RFC 7526) are refused anyway.
 */
const EMBEDDING: Array<{ range: Cidr; name: string; at: number; alwaysRefused: boolean }> = [
  { range: cidr('::/96'), name: 'an IPv4-compatible address', at: 12, alwaysRefused: true },
  { range: cidr('64:ff9b::/96'), name: 'a NAT64 address', at: 12, alwaysRefused: false },
  { range: cidr('2002::/16'), name: 'a 6to4 address', at: 2, alwaysRefused: true },
];

/** ISATAP interface identifiers (`::0:5efe:a.b.c.d`, `::200:5efe:a.b.c.d`) name an IPv4 host in their last 32 bits. */
const isIsatap = (bytes: Bytes): boolean =>
  (bytes[8] === 0 || bytes[8] === 2) && bytes[9] === 0 && bytes[10] === 0x5e && bytes[11] === 0xfe;

function embeddedKind(name: string, embedded: Bytes, revealEmbedded: boolean, alwaysRefused: boolean): string | undefined {
  const inner = ipv4Kind(embedded);
  if (!inner) return alwaysRefused ? name : undefined;
  return revealEmbedded ? `${name} of ${formatIpAddress(embedded)}, ${inner}` : `${name} of ${inner}`;
}

function ipv4Kind(bytes: Bytes): string | undefined {
  return [...METADATA, ...IPV4_SPECIAL].find((range) => within(bytes, range))?.kind;
}

/**
 * What makes an address unfit to send to ("a private address"), or undefined for a public unicast
 * address. Refused: every special-purpose IPv4 and IPv6 range (private, loopback, link-local,
 * unique-local, carrier-grade NAT, multicast, broadcast, reserved, unspecified, documentation,
 * benchmarking, cloud metadata…), Teredo, the IPv4-compatible, IPv4-translated and 6to4 forms,
 * local-use NAT64; an IPv4-mapped address is its IPv4 address, and NAT64 (64:ff9b::/96) and ISATAP
 * addresses are judged by the IPv4 address they carry. `revealEmbedded: false` leaves that IPv4
 * address out of the answer (for what DNS answered, which is none of the caller's business).
 */
export function unsafeKind(address: string, { revealEmbedded = true } = {}): string | undefined {
  const bytes = parseIpAddress(address);
  if (!bytes) return 'not an IP address';
  if (bytes.length === 4) return ipv4Kind(bytes);
  if (isMapped(bytes)) return ipv4Kind(bytes.slice(12));
  const metadata = METADATA.find((range) => within(bytes, range));
  if (metadata) return metadata.kind;
  const special = IPV6_SPECIAL.find((range) => within(bytes, range));
  if (special) return special.kind;
  for (const { range, name, at, alwaysRefused } of EMBEDDING) {
    if (within(bytes, range)) return embeddedKind(name, bytes.slice(at, at + 4), revealEmbedded, alwaysRefused);
  }
  if (!within(bytes, GLOBAL_UNICAST)) return 'a reserved address';
  if (isIsatap(bytes)) return embeddedKind('an ISATAP address', bytes.slice(12), revealEmbedded, false);
  return undefined;
}

/** A host name as compared with the allowed list: lower case, no trailing dot, IPs canonical. */
function normaliseHost(host: string): string {
  const lower = host.trim().toLowerCase().replace(/\.$/, '');
  return canonicalIp(lower) ?? lower;
}

/** The ports an allowed-hosts entry admits its host on: every port, or the ranges listed. */
type AdmittedPorts = 'any' | Array<[number, number]>;

const PORT_SUFFIX = /^(.*):(\d{1,5})(?:-(\d{1,5}))?$/;

/**
 * One allowed-hosts entry: `host` (every port), `host:port` or `host:first-last`; an IPv6 address
 * takes a port in brackets (`[::1]:9000`). `setting` names the variable in errors.
 */
export function parseAllowedHost(entry: string, setting = 'WEBHOOK_ALLOWED_HOSTS'): { host: string; ports: AdmittedPorts } {
  const text = entry.trim();
  if (canonicalIp(text) !== undefined && !text.startsWith('[')) return { host: normaliseHost(text), ports: 'any' };
  const match = PORT_SUFFIX.exec(text);
  if (!match) return { host: normaliseHost(text), ports: 'any' };
  const first = Number(match[2]);
  const last = match[3] === undefined ? first : Number(match[3]);
  if (first < 1 || last > 65_535 || last < first) throw new Error(`${setting}: ${text} names no valid port range`);
  return { host: normaliseHost(match[1]!), ports: [[first, last]] };
}

/** The port a URL connects to (its explicit one, else the scheme's). */
export const portOf = (url: URL): number => (url.port ? Number(url.port) : url.protocol === 'https:' ? 443 : 80);

type LookupCallback = (error: NodeJS.ErrnoException | null, address?: string | LookupAddress[], family?: number) => void;

export interface AddressPolicyOptions {
  /** The variable the allowed hosts come from, named when an entry is invalid. */
  setting?: string;
}

/**
 * Where a service may send requests its users chose the address of (webhooks): public unicast
 * addresses only, unless the host (and port) is one the operator admits (`host`, `host:port` or
 * `host:first-last`). `check` is asked before a URL is saved, with the URL's port; `lookup` is
 * given to the HTTP client so that the same rule holds at connect time, whatever the name resolves
 * to then. The lookup is not told the port: there a host admitted on some port passes, the port
 * having been checked when the URL was saved.
 */
export class AddressPolicy {
  private readonly allowed = new Map<string, AdmittedPorts>();

  constructor(
    allowedHosts: string[],
    /** dns.lookup; tests pass a table. */
    private readonly resolver: typeof dnsLookup = dnsLookup,
    { setting = 'WEBHOOK_ALLOWED_HOSTS' }: AddressPolicyOptions = {},
  ) {
    for (const entry of allowedHosts) {
      if (entry.trim() === '') continue;
      const { host, ports } = parseAllowedHost(entry, setting);
      const known = this.allowed.get(host);
      this.allowed.set(host, known === 'any' || ports === 'any' ? 'any' : [...(known ?? []), ...ports]);
    }
  }

  /** Whether the operator admitted this host name or IP address (on this port; on any port when none is given). */
  admits(host: string, port?: number): boolean {
    const ports = this.allowed.get(normaliseHost(host));
    if (ports === undefined) return false;
    return ports === 'any' || port === undefined || ports.some(([first, last]) => port >= first && port <= last);
  }

  /** Refuses what may not be sent to, resolving a host name (all its addresses) first. */
  async check(url: URL): Promise<void> {
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      throw new UnsafeAddressError(`${url.protocol.replace(/:$/, '')} URLs are not allowed; use http or https`, 'scheme');
    }
    const host = url.hostname;
    if (host === '') throw new UnsafeAddressError('the URL has no host', 'host');
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
   * What the connect-time `lookup` cannot see, checked before a connection: an address written in
   * the URL is never looked up, so it is judged here, by the rule in force now (a URL saved under
   * another `WEBHOOK_ALLOWED_HOSTS`, or before a range was refused). The reason, or null.
   */
  readonly connectRefusal = (url: URL): string | null => {
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return `${url.protocol.replace(/:$/, '')} URLs are not allowed`;
    const literal = canonicalIp(url.hostname);
    if (literal === undefined || this.admits(url.hostname, portOf(url))) return null;
    const kind = unsafeKind(literal);
    return kind ? `${literal} is ${kind}` : null;
  };

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
        if (error.code === 'ENOTFOUND' || error.code === 'ENODATA')
          reject(new UnsafeAddressError(`${host} does not resolve`, 'unresolved'));
        else reject(error);
      });
    });
  }

  /**
   * The refusal says what kind of address the name resolves to, never the address: DNS answers from
   * inside the network are none of the caller's business (a probe could map it with them).
   */
  private refuseUnsafe(host: string, addresses: LookupAddress[], port?: number): void {
    if (addresses.length === 0) throw new UnsafeAddressError(`${host} does not resolve`, 'unresolved');
    for (const { address } of addresses) {
      if (this.admits(address, port)) continue;
      const kind = unsafeKind(address, { revealEmbedded: false });
      if (kind) throw new UnsafeAddressError(`${host} resolves to ${kind}`);
    }
  }
}
