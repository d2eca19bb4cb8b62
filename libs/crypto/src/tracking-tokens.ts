import { CompactSign, compactVerify } from 'jose';

/** What a link in an email stands for: an open pixel, a tracked click, or an unsubscribe. */
export type TrackingAction = 'open' | 'click' | 'unsubscribe';

export interface TrackingClaim {
  action: TrackingAction;
  messageId: string;
  projectId: string;
  /** Clicks only: the one URL this token may redirect to. */
  url?: string;
  /**
   * The host name the link is served on (the message's tracking domain, or the public host for
   * unsubscribe links): the edge answers the token on that host only. Absent in tokens signed
   * before hosts were sealed.
   */
  host?: string;
  /** Unsubscribe links in a cc or bcc copy's own mail: the copy's position, from 1 (see ReturnPathClaim). */
  copy?: number;
}

interface Wire {
  a: 'o' | 'c' | 'u';
  m: string;
  p: string;
  u?: string;
  h?: string;
  k?: number;
  /** Expiry, seconds since the epoch (as JWT `exp`). */
  exp?: number;
}

export interface TrackingTokenOptions {
  /** How long a signed link answers; a link replayed forever would add work forever. */
  ttlMs?: number;
  now?: () => number;
}

export const DEFAULT_TRACKING_TOKEN_TTL_DAYS = 180;
const DAY_MS = 24 * 60 * 60 * 1000;

const CODE: Record<TrackingAction, Wire['a']> = { open: 'o', click: 'c', unsubscribe: 'u' };
const ACTION: Record<Wire['a'], TrackingAction> = { o: 'open', c: 'click', u: 'unsubscribe' };
const encoder = new TextEncoder();
const decoder = new TextDecoder();

/**
 * Signs and checks the tokens in tracking and unsubscribe links (JWS, HS256, jose): the mailer
 * signs, the gateway's edge verifies, both with TRACKING_SECRET. A token names a message, never
 * an address, so a link copied out of an email reveals nobody.
 */
export class TrackingTokens {
  private readonly key: Uint8Array;
  private readonly ttlMs: number;
  private readonly now: () => number;

  constructor(secret: string, options: TrackingTokenOptions = {}) {
    if (secret.length < 32) throw new Error('the tracking secret must be at least 32 characters');
    this.key = encoder.encode(secret);
    this.ttlMs = options.ttlMs ?? DEFAULT_TRACKING_TOKEN_TTL_DAYS * DAY_MS;
    this.now = options.now ?? Date.now;
  }

  async sign(claim: TrackingClaim): Promise<string> {
    const wire: Wire = {
      a: CODE[claim.action],
      m: claim.messageId,
      p: claim.projectId,
      ...(claim.url ? { u: claim.url } : {}),
      ...(claim.host ? { h: claim.host.toLowerCase() } : {}),
      ...(claim.copy !== undefined ? { k: claim.copy } : {}),
      exp: Math.floor((this.now() + this.ttlMs) / 1000),
    };
    return new CompactSign(encoder.encode(JSON.stringify(wire))).setProtectedHeader({ alg: 'HS256' }).sign(this.key);
  }

  /** The claim, or null for a token that was not signed with this secret, does not parse or has expired. */
  async verify(token: string, expected?: TrackingAction): Promise<TrackingClaim | null> {
    try {
      const { payload } = await compactVerify(token, this.key, { algorithms: ['HS256'] });
      const wire = JSON.parse(decoder.decode(payload)) as Partial<Wire>;
      if (typeof wire.m !== 'string' || typeof wire.p !== 'string' || !wire.a || !(wire.a in ACTION)) return null;
      const action = ACTION[wire.a];
      if (expected && action !== expected) return null;
      if (action === 'click' && typeof wire.u !== 'string') return null;
      if (wire.k !== undefined && !(Number.isInteger(wire.k) && wire.k >= 1)) return null;
      if (wire.exp !== undefined && (typeof wire.exp !== 'number' || wire.exp * 1000 <= this.now())) return null;
      return {
        action,
        messageId: wire.m,
        projectId: wire.p,
        ...(typeof wire.u === 'string' ? { url: wire.u } : {}),
        ...(typeof wire.h === 'string' ? { host: wire.h } : {}),
        ...(wire.k !== undefined ? { copy: wire.k } : {}),
      };
    } catch {
      return null;
    }
  }
}
