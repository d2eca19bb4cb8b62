import { formatIpAddress, parseIpAddress } from '@postbus/http/address-policy';

/**
 * What keeps the public subscription endpoints from being turned on others: anyone may subscribe
 * any address, so each client address and everyone together get a rate, the list a size, an
 * unconfirmed address a life, and a mailbox at most one confirmation mail in a while.
 */
export interface SubscriptionLimits {
  /** Subscription requests one client address may make per window; 0: no limit. */
  perClient: number;
  /** Subscription requests from everyone together per window; 0: no limit. */
  global: number;
  windowMs: number;
  /** Subscribers kept at most, confirmed or not. */
  maxSubscribers: number;
  /** How long an email subscriber may stay unconfirmed before it is removed. */
  unconfirmedTtlMs: number;
  /** At most one confirmation mail per address in this long. */
  confirmationResendMs: number;
}

export const DEFAULT_SUBSCRIPTION_LIMITS: SubscriptionLimits = {
  perClient: 5,
  global: 50,
  windowMs: 10 * 60_000,
  maxSubscribers: 20_000,
  unconfirmedTtlMs: 48 * 3_600_000,
  confirmationResendMs: 3_600_000,
};

interface Bucket {
  tokens: number;
  at: number;
}

/**
 * Token buckets, one per key: `capacity` requests at once, refilled evenly over `windowMs`, so a
 * refused client learns exactly when its next request is taken. Kept in memory: the subscription
 * endpoints are the status page's own, answered while its database is down. Past `maxKeys`, the
 * keys touched longest ago go first (their buckets have refilled by then, or nearly).
 */
export class TokenBuckets {
  private readonly buckets = new Map<string, Bucket>();

  constructor(
    private readonly capacity: number,
    private readonly windowMs: number,
    private readonly now: () => number = Date.now,
    private readonly maxKeys = 100_000,
  ) {}

  /** Takes a token for `key`: 0 when there was one, else the milliseconds until there is. */
  take(key: string): number {
    if (this.capacity <= 0) return 0;
    const now = this.now();
    const perMs = this.capacity / this.windowMs;
    const bucket = this.buckets.get(key);
    const tokens = bucket ? Math.min(this.capacity, bucket.tokens + (now - bucket.at) * perMs) : this.capacity;
    this.buckets.delete(key);
    if (tokens >= 1) {
      this.buckets.set(key, { tokens: tokens - 1, at: now });
      this.evict();
      return 0;
    }
    this.buckets.set(key, { tokens, at: now });
    return Math.max(1, Math.ceil((1 - tokens) / perMs));
  }

  private evict(): void {
    if (this.buckets.size <= this.maxKeys) return;
    for (const key of this.buckets.keys()) {
      if (this.buckets.size <= this.maxKeys * 0.9) break;
      this.buckets.delete(key);
    }
  }
}

/**
 * The key a client address is counted under: the address itself, an IPv4-mapped one as its IPv4
 * address, and an IPv6 one by its /64, the least a single subscriber line gets (counting each of
 * its addresses apart would give one client 2^64 allowances).
 */
export function clientKey(address: string | undefined): string {
  const bytes = address ? parseIpAddress(address) : undefined;
  if (!bytes) return address ?? 'unknown';
  if (bytes.length === 4) return formatIpAddress(bytes);
  if (bytes.slice(0, 10).every((b) => b === 0) && bytes[10] === 0xff && bytes[11] === 0xff) return formatIpAddress(bytes.slice(12));
  return `${formatIpAddress([...bytes.slice(0, 8), 0, 0, 0, 0, 0, 0, 0, 0])}/64`;
}
