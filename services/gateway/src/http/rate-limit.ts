import { createHash } from 'node:crypto';
import type { Request, RequestHandler } from 'express';
import { TooManyRequestsError } from '@postbus/errors';
import type { Logger } from '@postbus/logger';

/** A limit: at most `limit` requests of one subject (a client, an address) in any `windowMs`, counted by every instance together. */
export interface RatePolicy {
  name: string;
  limit: number;
  windowMs: number;
}

/** One instance's counts, cumulative within each window: `<policy>|<window end ms>|<subject>` → requests. */
export interface UsageReport {
  instance: string;
  counts: Record<string, number>;
}

export interface SharedCountersOptions {
  instance: string;
  /** Sends this instance's new counts to the others (on the bus). */
  publish: (report: UsageReport) => Promise<void>;
  /** How often counts are shared: a subject can overshoot by what the other instances admit meanwhile. */
  shareEveryMs: number;
  logger: Logger;
  now?: () => number;
}

export interface Verdict {
  allowed: boolean;
  /** Requests left in the current window (an estimate across instances). */
  remaining: number;
  /** When to try again, in whole seconds. */
  retryAfter: number;
}

/**
 * Rate counters shared by every gateway instance without a database round trip: each instance
 * counts in memory in fixed windows and publishes the counts that changed every `shareEveryMs`;
 * every instance adds the others' latest counts to its own. A request is judged by a sliding
 * window estimate (this window's count plus the previous window's, weighted by how much of it
 * still overlaps), so a burst at a window's edge cannot pass twice the limit.
 *
 * Why not the database: a counter document updated with $inc costs a scanning update and is not
 * atomic across connections on FerretDB, and counting inserted documents costs a scan per request.
 */
export class SharedCounters {
  private readonly local = new Map<string, number>();
  /** key → instance → that instance's latest count. */
  private readonly remote = new Map<string, Map<string, number>>();
  private readonly remoteTotal = new Map<string, number>();
  private readonly changed = new Set<string>();
  /** key → when it no longer counts: its window has ended, and the one after it too (it weighs in the sliding estimate). */
  private readonly expiry = new Map<string, number>();
  private sweptAt = 0;
  private readonly now: () => number;
  private timer: NodeJS.Timeout | undefined;
  private publishing = false;
  private warnedAt = 0;

  constructor(private readonly options: SharedCountersOptions) {
    this.now = options.now ?? Date.now;
  }

  start(): void {
    this.timer = setInterval(() => this.share(), this.options.shareEveryMs);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
  }

  /** Counts `weight` requests (or messages) of the subject when they are within the limit (refused ones do not count). */
  take(policy: RatePolicy, subject: string, weight = 1): Verdict {
    const verdict = this.check(policy, subject, weight);
    if (verdict.allowed) this.add(policy, subject, weight);
    return verdict;
  }

  /** Whether `weight` more of the subject would be within the limit, without counting them. */
  check(policy: RatePolicy, subject: string, weight = 1): Verdict {
    const at = this.now();
    const end = windowEnd(at, policy.windowMs);
    const current = this.total(keyOf(policy, end, subject));
    const previous = this.total(keyOf(policy, end - policy.windowMs, subject));
    const overlap = (end - at) / policy.windowMs;
    const used = current + previous * overlap;
    if (used + weight <= policy.limit) return { allowed: true, remaining: Math.floor(policy.limit - used - weight), retryAfter: 0 };
    // The estimate falls as the previous window slides out, or the current one ends.
    const retryAfterMs =
      previous > 0 && current + weight <= policy.limit ? ((used + weight - policy.limit) / previous) * policy.windowMs : end - at;
    return { allowed: false, remaining: 0, retryAfter: Math.max(1, Math.ceil(Math.min(retryAfterMs, end - at) / 1000)) };
  }

  /** Counts `weight` events of the subject (e.g. a failed authentication). */
  add(policy: RatePolicy, subject: string, weight = 1): void {
    const end = windowEnd(this.now(), policy.windowMs);
    const key = keyOf(policy, end, subject);
    const count = this.local.get(key);
    if (count === undefined && !this.expiry.has(key)) this.expiry.set(key, end + policy.windowMs);
    this.local.set(key, (count ?? 0) + weight);
    this.changed.add(key);
  }

  /** Another instance's counts; ours come back on the bus too and are ignored. */
  receive(report: UsageReport): void {
    if (report.instance === this.options.instance) return;
    for (const [key, count] of Object.entries(report.counts)) {
      let byInstance = this.remote.get(key);
      if (!byInstance) {
        const expires = expiryOf(key);
        if (expires === undefined || expires < this.now()) continue;
        this.remote.set(key, (byInstance = new Map<string, number>()));
        if (!this.expiry.has(key)) this.expiry.set(key, expires);
      }
      const before = byInstance.get(report.instance) ?? 0;
      if (count <= before) continue; // counts only grow within a window: an older report
      byInstance.set(report.instance, count);
      this.remoteTotal.set(key, (this.remoteTotal.get(key) ?? 0) + count - before);
    }
  }

  /** Publishes the counts that changed, and forgets windows that ended. */
  share(): void {
    this.forgetEnded();
    if (this.changed.size === 0 || this.publishing) return;
    const counts: Record<string, number> = {};
    for (const key of this.changed) counts[key] = this.local.get(key) ?? 0;
    this.changed.clear();
    this.publishing = true;
    this.options
      .publish({ instance: this.options.instance, counts })
      .catch((error: unknown) => {
        for (const key of Object.keys(counts)) this.changed.add(key);
        if (this.now() - this.warnedAt > 60_000) {
          this.warnedAt = this.now();
          this.options.logger.warn('sharing rate-limit counts failed; limits are per instance until the bus is back', {
            error: (error as Error).message,
          });
        }
      })
      .finally(() => (this.publishing = false));
  }

  private total(key: string): number {
    return (this.local.get(key) ?? 0) + (this.remoteTotal.get(key) ?? 0);
  }

  /** At most once a second: the shortest window is a second. */
  private forgetEnded(): void {
    const at = this.now();
    if (at - this.sweptAt < 1_000) return;
    this.sweptAt = at;
    for (const [key, expires] of this.expiry) {
      if (expires >= at) continue;
      this.expiry.delete(key);
      this.local.delete(key);
      this.changed.delete(key);
      this.remote.delete(key);
      this.remoteTotal.delete(key);
    }
  }
}

const windowEnd = (at: number, windowMs: number): number => Math.floor(at / windowMs) * windowMs + windowMs;
const keyOf = (policy: RatePolicy, end: number, subject: string): string => `${policy.name}|${end}|${subject}|${policy.windowMs}`;
const expiryOf = (key: string): number | undefined => {
  const [, end, windowMs] = /^[^|]*\|(\d+)\|.*\|(\d+)$/.exec(key) ?? [];
  return end === undefined ? undefined : Number(end) + Number(windowMs);
};

/**
 * The address a request came from, as a short digest: addresses are personal data and travel on
 * the bus only this way. Which proxies' X-Forwarded-For is believed is TRUST_PROXY's business.
 */
export const addressOf = (req: Request): string =>
  createHash('sha256')
    .update(req.ip ?? req.socket.remoteAddress ?? '')
    .digest('base64url')
    .slice(0, 16);

/**
 * The per-client limit on the API: `perSecond` requests a second across all gateway instances.
 * Over it, 429 with Retry-After and the IETF RateLimit headers. 0 turns it off.
 */
export function rateLimit(counters: SharedCounters, perSecond: number): RequestHandler {
  if (perSecond <= 0) return (_req, _res, next) => next();
  const policy: RatePolicy = { name: 'client', limit: perSecond, windowMs: 1_000 };
  const header = `"client";q=${perSecond};w=1`;
  return (req, _res, next) => {
    const clientId = req.client?.clientId;
    if (!clientId) return next();
    const verdict = counters.take(policy, clientId);
    if (!verdict.allowed) {
      throw new TooManyRequestsError(
        `This client may send ${perSecond} requests a second (all gateway instances together); retry after ${verdict.retryAfter} s.`,
        verdict.retryAfter,
        { 'RateLimit-Policy': header, RateLimit: `"client";r=0;t=${verdict.retryAfter}` },
      );
    }
    next();
  };
}

/**
 * The per-client limit on messages: `perSecond` a second across all gateway instances, a send
 * counting one and a batch one per item (`messagesOf`, read off the parsed body), so that a client
 * cannot pass 500 times the request limit in batches. Over it, 429 with Retry-After, and nothing
 * of the request is queued. 0 turns it off.
 */
export function messageRateLimit(counters: SharedCounters, perSecond: number, messagesOf: (req: Request) => number): RequestHandler {
  if (perSecond <= 0) return (_req, _res, next) => next();
  const policy: RatePolicy = { name: 'client-messages', limit: perSecond, windowMs: 1_000 };
  const header = `"messages";q=${perSecond};w=1`;
  return (req, _res, next) => {
    const clientId = req.client?.clientId;
    const messages = clientId ? messagesOf(req) : 0;
    if (!clientId || messages === 0) return next();
    // A request of more messages than the whole limit counts as the limit: it passes in a window of its own.
    const verdict = counters.take(policy, clientId, Math.min(messages, perSecond));
    if (!verdict.allowed) {
      throw new TooManyRequestsError(
        `This client may send ${perSecond} messages a second (all gateway instances together; a batch counts each of its messages); retry after ${verdict.retryAfter} s.`,
        verdict.retryAfter,
        { 'RateLimit-Policy': header, RateLimit: `"messages";r=0;t=${verdict.retryAfter}` },
      );
    }
    next();
  };
}

/** The per-address limit on the public edge (/t/*): a plain-text 429, since browsers and mail clients call it. */
export function edgeRateLimit(counters: SharedCounters, perMinute: number): RequestHandler {
  if (perMinute <= 0) return (_req, _res, next) => next();
  const policy: RatePolicy = { name: 'edge', limit: perMinute, windowMs: 60_000 };
  return (req, res, next) => {
    const verdict = counters.take(policy, addressOf(req));
    if (verdict.allowed) return next();
    res
      .status(429)
      .set({ 'Retry-After': String(verdict.retryAfter), 'Cache-Control': 'no-store', 'RateLimit-Policy': `"address";q=${perMinute};w=60` })
      .type('text/plain')
      .send('Too many requests; try again later.');
  };
}

/** How long a key that authenticated from an address stays known there (between one and two of these). */
const KNOWN_KEY_WINDOW_MS = 60 * 60 * 1000;
/** A known key is announced to the other instances again at most this often per instance. */
const KNOWN_KEY_RENEW_MS = 10 * 60 * 1000;
const MAX_RENEWALS = 10_000;

/** The address a request is counted against: its own, or that of the SMTP client the submission service makes it for. */
const ipOf = (req: Request): string => req.submission?.clientAddress ?? req.ip ?? req.socket.remoteAddress ?? '';

/** A short digest of a client id or key digest with the request's address: what travels on the bus. */
const pairOf = (first: string, req: Request): string =>
  createHash('sha256')
    .update(`${first}\n${ipOf(req)}`)
    .digest('base64url')
    .slice(0, 16);

/**
 * Failed API-key authentications, counted per (client id, address): past the limit, that client's
 * keys are refused from that address until it cools down, except keys that already authenticated
 * from there within the last hour or so. Counted by all instances together.
 *
 * Why per client and address, not per address: an address is often shared (a company's NAT, a
 * cloud egress, a CI fleet), so counting it alone let anyone there lock every other client behind
 * it out with a few wrong keys. Why not a lockout that any correct key lifts: a locked address
 * would then still have each guess checked, and a right guess answered 200 where wrong ones get
 * 429, which leaves brute force exactly as fast as without a limit. So while a (client, address)
 * pair is locked, a key is checked only if it had already proven itself from that address before
 * (the client's own backend there keeps working while someone beside it guesses); any other key,
 * right or wrong, gets the same 429 unchecked, so a guess learns nothing. Another client's keys
 * from the same address are not affected at all.
 */
export class AuthFailureLimit {
  private readonly policy: RatePolicy;
  private readonly known: RatePolicy = { name: 'auth-known', limit: 1, windowMs: KNOWN_KEY_WINDOW_MS };
  /** This instance's last announcement of each known (key, address), so that success costs no bus traffic per request. */
  private readonly renewedAt = new Map<string, number>();

  constructor(
    private readonly counters: SharedCounters,
    perMinute: number,
    private readonly now: () => number = Date.now,
  ) {
    this.policy = { name: 'auth-failures', limit: perMinute, windowMs: 60_000 };
  }

  /**
   * Throws 429 when the client's keys have failed too often from this address, unless the key
   * presented (its digest) already authenticated from there. Checked before the key is.
   */
  assertAllowed(req: Request, clientId: string, keyDigest: Buffer): void {
    if (this.policy.limit <= 0) return;
    const verdict = this.counters.check(this.policy, pairOf(clientId, req));
    if (verdict.allowed || this.isKnown(req, keyDigest)) return;
    throw new TooManyRequestsError(
      `Too many failed authentications for this client from this address; retry after ${verdict.retryAfter} s. Keys already in use from this address still work.`,
      verdict.retryAfter,
      { 'RateLimit-Policy': `"auth-failures";q=${this.policy.limit};w=60`, RateLimit: `"auth-failures";r=0;t=${verdict.retryAfter}` },
    );
  }

  /** A key of the client (or what was presented as one) failed from this address. */
  failed(req: Request, clientId: string): void {
    if (this.policy.limit > 0) this.counters.add(this.policy, pairOf(clientId, req));
  }

  /** The key authenticated from this address: it stays usable there through a lockout. */
  succeeded(req: Request, keyDigest: Buffer): void {
    if (this.policy.limit <= 0) return;
    const local = `${keyDigest.toString('base64url')}|${ipOf(req)}`;
    const at = this.now();
    if (at - (this.renewedAt.get(local) ?? -Infinity) < KNOWN_KEY_RENEW_MS) return;
    if (this.renewedAt.size >= MAX_RENEWALS) this.renewedAt.clear();
    this.renewedAt.set(local, at);
    this.counters.add(this.known, pairOf(keyDigest.toString('base64url'), req));
  }

  /** Seen within the current or the previous window (the sliding estimate is above 0: one more would pass the limit of 1). */
  private isKnown(req: Request, keyDigest: Buffer): boolean {
    return !this.counters.check(this.known, pairOf(keyDigest.toString('base64url'), req)).allowed;
  }
}
