import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * The links in subscription mails (confirm, unsubscribe) carry a signed token naming the subscriber
 * and what it may do, so the link works without a session and cannot be forged for someone else.
 */
export type TokenPurpose = 'confirm' | 'unsubscribe';

interface TokenBody {
  p: TokenPurpose;
  s: string;
  /** Expiry, epoch seconds; unsubscribe links never expire (a mail from last year must still work). */
  e?: number;
}

export class SubscriptionTokens {
  constructor(private readonly secret: string) {
    if (secret.length < 16) throw new Error('the subscription token secret must be at least 16 characters');
  }

  private mac(body: string): string {
    return createHmac('sha256', this.secret).update(body).digest('base64url');
  }

  issue(purpose: TokenPurpose, subscriberId: string, ttlMs?: number, now = new Date()): string {
    const body: TokenBody = { p: purpose, s: subscriberId, ...(ttlMs !== undefined && { e: Math.floor((now.getTime() + ttlMs) / 1000) }) };
    const encoded = Buffer.from(JSON.stringify(body)).toString('base64url');
    return `${encoded}.${this.mac(encoded)}`;
  }

  /** The subscriber id, when the token is genuine, for this purpose and not expired. */
  verify(token: string, purpose: TokenPurpose, now = new Date()): string | undefined {
    const [encoded, mac] = token.split('.');
    if (!encoded || !mac) return undefined;
    const expected = Buffer.from(this.mac(encoded));
    const given = Buffer.from(mac);
    if (expected.length !== given.length || !timingSafeEqual(expected, given)) return undefined;
    try {
      const body = JSON.parse(Buffer.from(encoded, 'base64url').toString('utf8')) as TokenBody;
      if (body.p !== purpose || typeof body.s !== 'string') return undefined;
      if (body.e !== undefined && body.e * 1000 < now.getTime()) return undefined;
      return body.s;
    } catch {
      return undefined;
    }
  }
}
