import { createHmac, hkdfSync, timingSafeEqual } from 'node:crypto';

/**
 * What a mail to a return-path address is about: `bounce` for the envelope sender of a message
 * (DSNs and complaints come back to it), `unsubscribe` for its List-Unsubscribe mailto address.
 */
export type ReturnPathPurpose = 'bounce' | 'unsubscribe';

export interface ReturnPathClaim {
  purpose: ReturnPathPurpose;
  messageId: string;
  /**
   * A cc or bcc copy's own mail (each copy goes in its own SMTP transaction): its position, from 1,
   * among the message's copies (cc, then bcc). Absent for the mail to the message's recipient.
   */
  copy?: number;
}

const PREFIX: Record<ReturnPathPurpose, string> = { bounce: 'b', unsubscribe: 'u' };
const PURPOSE: Record<string, ReturnPathPurpose> = { b: 'bounce', u: 'unsubscribe' };
/** A copy's position: 1 to 99, well above the copies a send may have. */
const MAX_COPY = 99;
/** Message ids are `msg_` and 32 hex digits; the local part carries the hex only. */
const MESSAGE_ID = /^msg_([0-9a-f]{32})$/;
/** 20 base32 characters: 100 bits of HMAC-SHA256, far beyond guessing one message's address. */
const MAC_LENGTH = 20;
const BASE32 = 'abcdefghijklmnopqrstuvwxyz234567';

function base32(bytes: Buffer, length: number): string {
  let bits = 0;
  let value = 0;
  let out = '';
  for (const byte of bytes) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5 && out.length < length) {
      out += BASE32[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  return out;
}

/**
 * The local parts of return-path addresses: `b.<message hex>.<mac>` (55 characters, under the
 * 64 that RFC 5321 allows), `b<copy>.<message hex>.<mac>` for a copy's own mail (57 at most),
 * lowercase only, since some servers change a local part's case. The MAC, keyed by a key derived
 * from the tracking secret, makes the address unforgeable: knowing a message id is not enough to
 * bounce it, and a token for one message, or one copy of it, names no other.
 */
export class ReturnPathTokens {
  private readonly key: Buffer;

  constructor(secret: string) {
    if (secret.length < 32) throw new Error('the secret return-path tokens derive from must be at least 32 characters');
    this.key = Buffer.from(hkdfSync('sha256', secret, '', 'postbus return-path tokens', 32));
  }

  private mac(prefix: string, hex: string): string {
    return base32(createHmac('sha256', this.key).update(`${prefix}.${hex}`).digest(), MAC_LENGTH);
  }

  localPart(claim: ReturnPathClaim): string {
    const hex = claim.messageId.match(MESSAGE_ID)?.[1];
    if (!hex) throw new Error(`not a message id: ${claim.messageId}`);
    if (claim.copy !== undefined && !(Number.isInteger(claim.copy) && claim.copy >= 1 && claim.copy <= MAX_COPY))
      throw new Error(`not a copy's position: ${claim.copy}`);
    const prefix = `${PREFIX[claim.purpose]}${claim.copy ?? ''}`;
    return `${prefix}.${hex}.${this.mac(prefix, hex)}`;
  }

  /** The claim of a local part (any case), or null when it was not signed with this secret or does not parse. */
  verify(localPart: string): ReturnPathClaim | null {
    const match = localPart.toLowerCase().match(/^([bu])([1-9][0-9]?)?\.([0-9a-f]{32})\.([a-z2-7]{20})$/);
    if (!match) return null;
    const [, purpose, copy, hex, mac] = match as unknown as [string, string, string | undefined, string, string];
    const expected = Buffer.from(this.mac(`${purpose}${copy ?? ''}`, hex));
    if (!timingSafeEqual(expected, Buffer.from(mac))) return null;
    return { purpose: PURPOSE[purpose]!, messageId: `msg_${hex}`, ...(copy !== undefined ? { copy: Number(copy) } : {}) };
  }
}
