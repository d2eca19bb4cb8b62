const SECRET_KEY = /pass(word)?|secret|api_?key|token|authorization|cookie|credential/i;

/** Longest string value a log line keeps (masked first, then cut): a hostile input never makes a huge line. */
export const MAX_LOGGED_STRING = 2048;
const MAX_LOGGED_STACK = 8192;

const isLocal = (c: number) =>
  (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57) || c === 46 || c === 95 || c === 37 || c === 43 || c === 45; // a-z A-Z 0-9 . _ % + -
const isDomain = (c: number) => (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57) || c === 46 || c === 45; // a-z A-Z 0-9 . -
const isLetter = (c: number) => (c >= 97 && c <= 122) || (c >= 65 && c <= 90);
const isWord = (c: number) => isLetter(c) || (c >= 48 && c <= 57) || c === 95;

/**
 * Masks every email address in a string: "jane.doe@example.com" becomes "j***@e***.com" (the
 * domain up to its first `.letters` label). A scan from each `@` rather than a regex: a regex with
 * a repeated local part backtracks quadratically over a long run of letters without an `@`; here
 * every character is looked at a bounded number of times.
 */
export function maskEmails(text: string): string {
  let at = text.indexOf('@');
  if (at < 0) return text;
  const parts: string[] = [];
  let copied = 0; // text before this is in parts (or masked away)
  while (at >= 0) {
    let local = at;
    while (local > copied && isLocal(text.charCodeAt(local - 1))) local--;
    const end = local < at ? domainEnd(text, at + 1) : -1;
    if (end >= 0) {
      parts.push(text.slice(copied, local), text[local]!, '***@', text[at + 1]!, '***', text.slice(tldStart(text, at + 2, end), end));
      copied = end;
    }
    at = text.indexOf('@', Math.max(at + 1, copied));
  }
  parts.push(text.slice(copied));
  return parts.join('');
}

/** Where an address's domain starting at `from` ends: after its first `.letters` label; -1 if there is none. */
function domainEnd(text: string, from: number): number {
  if (from >= text.length || !isDomain(text.charCodeAt(from)) || text.charCodeAt(from) === 46) return -1;
  for (let i = from + 1; i < text.length && isDomain(text.charCodeAt(i)); i++) {
    if (text.charCodeAt(i) !== 46) continue;
    let j = i + 1;
    while (j < text.length && isLetter(text.charCodeAt(j))) j++;
    if (j - i - 1 >= 2 && (j === text.length || !isWord(text.charCodeAt(j)))) return j;
  }
  return -1;
}

/** The `.label` that ends a domain found by domainEnd. */
function tldStart(text: string, from: number, end: number): number {
  return text.lastIndexOf('.', end - 1) >= from ? text.lastIndexOf('.', end - 1) : end;
}

/** Masks emails, then cuts the string to `max` characters, saying how much went. */
export function safeString(text: string, max = MAX_LOGGED_STRING): string {
  const masked = maskEmails(text);
  return masked.length <= max ? masked : `${masked.slice(0, max)}…[${masked.length - max} more characters]`;
}

/** Deep copy of a log payload with emails masked and secret-looking keys replaced. */
export function redact(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') return safeString(value);
  if (value === null || typeof value !== 'object' || depth > 6) return value;
  if (value instanceof Error) {
    return { name: value.name, message: safeString(value.message), stack: value.stack && safeString(value.stack, MAX_LOGGED_STACK) };
  }
  if (Array.isArray(value)) return value.map((v) => redact(v, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value)) {
    out[key] = SECRET_KEY.test(key) && v != null ? '[redacted]' : redact(v, depth + 1);
  }
  return out;
}
