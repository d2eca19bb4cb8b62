import type { ReturnPathClaim, ReturnPathTokens } from '@postbus/crypto';

/**
 * A return-path token as it appears before the `@` of an address: `b.`/`u.` (or `b3.` for a copy's
 * own mail), the message's hex and the MAC. Linear: each match starts with a fixed shape and is 57
 * characters at most.
 */
const TOKEN = /\b([bu](?:[1-9][0-9]?)?\.[0-9a-f]{32}\.[a-z2-7]{20})@/gi;
/** A line of base64 (a body part encoded so), where a quoted original's return path may be. */
const BASE64_LINE = /^[A-Za-z0-9+/]{16,}={0,2}\r?$/;
/** Tokens checked per mail at most: each is an HMAC, and a stranger's mail may hold thousands of look-alikes. */
const MAX_CANDIDATES = 50;

/** What the signed token of an address's local part claims, or null when it carries none. */
export const claimOfAddress = (tokens: ReturnPathTokens, address: string): ReturnPathClaim | null =>
  tokens.verify(address.slice(0, Math.max(0, address.lastIndexOf('@'))));

/** The text of a mail's head where a token may appear: as it is, with quoted-printable soft breaks joined, and its base64 runs decoded. */
function textsOf(head: Buffer): string[] {
  const text = head.toString('latin1');
  const decoded: string[] = [];
  let run: string[] = [];
  const flush = () => {
    if (run.length > 0) decoded.push(Buffer.from(run.join(''), 'base64').toString('latin1'));
    run = [];
  };
  for (const line of text.split('\n')) {
    if (BASE64_LINE.test(line)) run.push(line.trim());
    else flush();
  }
  flush();
  return [text.replace(/=\r?\n/g, ''), ...decoded];
}

/**
 * Whether a mail names one of our messages with a signed token: as one of its recipients (a bounce
 * to a return path, a mail to an unsubscribe address), or anywhere in the head the MX keeps (the
 * return path or List-Unsubscribe address of the original a report quotes). A mail that does not
 * can change nothing, and is not stored: a stranger cannot fill the bus with it.
 */
export function carriesToken(mail: { head: Buffer; rcptTo: string[] }, tokens: ReturnPathTokens): boolean {
  if (mail.rcptTo.some((address) => claimOfAddress(tokens, address) !== null)) return true;
  let checked = 0;
  for (const text of textsOf(mail.head)) {
    for (const match of text.matchAll(TOKEN)) {
      if (tokens.verify(match[1]!) !== null) return true;
      if (++checked >= MAX_CANDIDATES) return false;
    }
  }
  return false;
}
