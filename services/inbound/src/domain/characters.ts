/**
 * The character classes of JavaScript regular expressions (without the `u` flag), for the
 * hand-written scanners that read reports in one pass where an expression would backtrack.
 */

/** `\s`: white space and line terminators, as ECMAScript defines them. */
export function isSpace(c: number): boolean {
  if (c <= 0x20) return c === 0x20 || (c >= 0x09 && c <= 0x0d);
  if (c < 0xa0) return false;
  return (
    c === 0xa0 ||
    c === 0x1680 ||
    (c >= 0x2000 && c <= 0x200a) ||
    c === 0x2028 ||
    c === 0x2029 ||
    c === 0x202f ||
    c === 0x205f ||
    c === 0x3000 ||
    c === 0xfeff
  );
}

/** What `^` follows with the `m` flag: LF, CR, LS, PS. */
export const isLineTerminator = (c: number): boolean => c === 0x0a || c === 0x0d || c === 0x2028 || c === 0x2029;

/** `[A-Za-z]` (also `[a-z]` with the `i` flag: without `u`, no other character folds to an ASCII letter). */
export const isLetter = (c: number): boolean => (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a);

/** `[0-9]`. */
export const isDigit = (c: number): boolean => c >= 0x30 && c <= 0x39;

/** `\w`, what `\b` tells apart: `[A-Za-z0-9_]`. */
export const isWordChar = (c: number): boolean => isLetter(c) || isDigit(c) || c === 0x5f;

/** Whether `text` has `lowered` (lower-case ASCII) at `at`, ASCII letters compared without case, as the `i` flag does. */
export function hasAt(text: string, at: number, lowered: string): boolean {
  if (at + lowered.length > text.length) return false;
  for (let i = 0; i < lowered.length; i++) {
    let c = text.charCodeAt(at + i);
    if (c >= 0x41 && c <= 0x5a) c += 0x20;
    if (c !== lowered.charCodeAt(i)) return false;
  }
  return true;
}
