import { hasAt, isLetter, isLineTerminator, isSpace, isWordChar } from './characters';

/**
 * What a plain-text notice says, read by scanners that look at each character a bounded number of
 * times: a notice is hostile input, and the expressions these replace backtracked over runs of
 * blank lines or of address-like characters in time quadratic in their length.
 */

/** The words after a run of dashes that start a quoted copy of the returned mail. */
const quoteHeadings = ['below this line is a copy', 'original message', 'forwarded message'];
/** The header names that start a quoted copy without a heading. */
const quoteHeaders = ['return-path:', 'received:'];

const DASH = 0x2d;

/** Whether a quoted copy starts at `at`: a header of the copy, or two dashes or more, white space, and a heading. */
function quoteStartsAt(text: string, at: number): boolean {
  if (quoteHeaders.some((name) => hasAt(text, at, name))) return true;
  let i = at;
  while (text.charCodeAt(i) === DASH) i++;
  if (i - at < 2) return false;
  while (i < text.length && isSpace(text.charCodeAt(i))) i++;
  return quoteHeadings.some((heading) => hasAt(text, i, heading));
}

/**
 * The human-readable part of a notice: what precedes the returned mail it quotes. The same cut as
 * `text.split(/^\s*(?:-{2,}\s*(?:Below this line is a copy|Original message|Forwarded message)|Return-Path:|Received:)/im)[0]`:
 * the quote may follow white space that spans lines, and the cut is then at the first line start
 * within that white space.
 */
export function noticeText(text: string): string {
  // The first line start in the run of white space before `i`; -1 when the run holds none.
  let cut = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (isSpace(c)) {
      if (cut < 0 && isLineTerminator(c)) cut = i + 1;
      continue;
    }
    // Each character is looked at again at most once by quoteStartsAt: the dashes and white space
    // it reads from a line's first non-blank character are not the start of another line's.
    if (cut >= 0 && quoteStartsAt(text, i)) return text.slice(0, cut);
    cut = -1;
  }
  return text;
}

const LT = 0x3c;
const GT = 0x3e;
const AT = 0x40;
const DOT = 0x2e;

/** `[^\s<>@:;,"]`: what the local part of an address written without brackets is made of. */
const isLocalChar = (c: number): boolean =>
  !isSpace(c) && c !== LT && c !== GT && c !== AT && c !== 0x3a && c !== 0x3b && c !== 0x2c && c !== 0x22;

/** `[a-z0-9.-]` with the `i` flag. */
const isDomainChar = (c: number): boolean => isLetter(c) || (c >= 0x30 && c <= 0x39) || c === DOT || c === DASH;

/** `\b` at `at`. */
const isBoundary = (text: string, at: number): boolean =>
  (at > 0 && isWordChar(text.charCodeAt(at - 1))) !== (at < text.length && isWordChar(text.charCodeAt(at)));

/**
 * The end of the domain after the `@` at `at` in `\b…@[a-z0-9.-]+\.[a-z]{2,}\b` (case-insensitive),
 * or -1: the domain's characters run to `runEnd`, and its last dot is the one that is followed by
 * two letters or more and a boundary, as the greedy expression backtracks to the last such dot.
 */
function domainEnd(text: string, at: number): number {
  let runEnd = at + 1;
  while (runEnd < text.length && isDomainChar(text.charCodeAt(runEnd))) runEnd++;
  // From the right: `letters` is the end of the run of letters that starts after position i.
  let letters = -1;
  for (let i = runEnd - 1; i >= at + 2; i--) {
    const c = text.charCodeAt(i);
    if (c === DOT && letters - (i + 1) >= 2 && isBoundary(text, letters)) return letters;
    if (!isLetter(c)) letters = -1;
    else if (letters < 0) letters = i + 1;
  }
  return -1;
}

/**
 * The first address written without brackets in a notice, as
 * `text.match(/\b([^\s<>@:;,"]+@[a-z0-9.-]+\.[a-z]{2,})\b/i)?.[1]` finds it. The local part before
 * each `@` is scanned back to the character before it that is not one of its (which the previous
 * `@` is), and the domain after it forward to the first that is not one of a domain's (which the
 * next `@` is): each character is read a bounded number of times whatever the text.
 */
export function plainAddress(text: string): string | undefined {
  for (let at = text.indexOf('@'); at >= 0; at = text.indexOf('@', at + 1)) {
    let localStart = at;
    while (localStart > 0 && isLocalChar(text.charCodeAt(localStart - 1))) localStart--;
    let start = localStart;
    while (start < at && !isBoundary(text, start)) start++;
    if (start === at) continue;
    const end = domainEnd(text, at);
    if (end >= 0) return text.slice(start, end);
  }
  return undefined;
}

/**
 * The recipient a notice names: the first `<local@domain>`, else the first address written without
 * brackets. The bracketed form's expression is linear: its runs stop at the next `<`, `>`, `@` or
 * white space, so a start (a `<`) reads on to the next one at most.
 */
export const noticeRecipient = (text: string): string | undefined => text.match(/<([^\s<>@]+@[^\s<>@]+)>/)?.[1] ?? plainAddress(text);
