import addressparser from 'nodemailer/lib/addressparser';

/** The headers the list, the summaries and the search need, as raw unfolded values ('' when absent). */
export interface KeyHeaders {
  messageId: string;
  from: string;
  to: string;
  cc: string;
  bcc: string;
  replyTo: string;
  returnPath: string;
  subject: string;
  date: string;
}

const KEY_HEADER_NAMES: Record<string, keyof KeyHeaders> = {
  'message-id': 'messageId',
  from: 'from',
  to: 'to',
  cc: 'cc',
  bcc: 'bcc',
  'reply-to': 'replyTo',
  'return-path': 'returnPath',
  subject: 'subject',
  date: 'date',
};

/** Where the header block ends: at the first empty line, or the whole message when there is none. */
function headerBlockEnd(raw: Buffer): number {
  const crlf = raw.indexOf('\r\n\r\n');
  const lf = raw.indexOf('\n\n');
  if (crlf === -1) return lf === -1 ? raw.length : lf + 1;
  return lf === -1 || crlf < lf ? crlf + 2 : lf + 1;
}

/** The top header block of a message as text; the body is never decoded. */
export function headerBlock(raw: Buffer): string {
  return raw.toString('utf8', 0, headerBlockEnd(raw));
}

/** Every header of a block, in order, folded lines joined (RFC 5322 §2.2.3) and values trimmed. */
export function parseHeaderBlock(block: string): Array<[name: string, value: string]> {
  const headers: Array<[string, string]> = [];
  for (const line of block.split(/\r?\n/)) {
    if (line === '') continue;
    const last = headers[headers.length - 1];
    if ((line.startsWith(' ') || line.startsWith('\t')) && last) {
      last[1] = `${last[1]} ${line.trim()}`.trim();
      continue;
    }
    const colon = line.indexOf(':');
    if (colon <= 0) continue;
    headers.push([line.slice(0, colon).trim(), line.slice(colon + 1).trim()]);
  }
  return headers;
}

/** Only the key headers, the first of each: all the receive path extracts from a message. */
export function keyHeadersOf(raw: Buffer): KeyHeaders {
  const found: KeyHeaders = { messageId: '', from: '', to: '', cc: '', bcc: '', replyTo: '', returnPath: '', subject: '', date: '' };
  const seen = new Set<keyof KeyHeaders>();
  for (const [name, value] of parseHeaderBlock(headerBlock(raw))) {
    const key = KEY_HEADER_NAMES[name.toLowerCase()];
    if (key && !seen.has(key)) {
      seen.add(key);
      found[key] = value;
    }
  }
  return found;
}

/** Go's textproto.CanonicalMIMEHeaderKey, which Mailpit's header map uses: "message-id" → "Message-Id". */
export function canonicalHeaderName(name: string): string {
  if (!/^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/.test(name)) return name;
  return name.toLowerCase().replace(/(^|-)([a-z])/g, (_match, dash: string, letter: string) => dash + letter.toUpperCase());
}

/** The header map Mailpit's /headers answers: canonical name → every value, names in alphabetical order. */
export function headerMap(raw: Buffer): Record<string, string[]> {
  const grouped = new Map<string, string[]>();
  for (const [name, value] of parseHeaderBlock(headerBlock(raw))) {
    const key = canonicalHeaderName(name);
    const values = grouped.get(key);
    if (values) values.push(value);
    else grouped.set(key, [value]);
  }
  return Object.fromEntries([...grouped.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

const ENCODED_WORD = /=\?([^?\s]+)\?([BbQq])\?([^?\s]*)\?=/g;

function decodeQ(text: string): Buffer {
  const bytes: number[] = [];
  for (let i = 0; i < text.length; i++) {
    const char = text[i]!;
    if (char === '_') bytes.push(0x20);
    else if (char === '=' && /^[0-9A-Fa-f]{2}$/.test(text.slice(i + 1, i + 3))) {
      bytes.push(parseInt(text.slice(i + 1, i + 3), 16));
      i += 2;
    } else bytes.push(char.charCodeAt(0) & 0xff);
  }
  return Buffer.from(bytes);
}

function decodeCharset(bytes: Buffer, charset: string): string {
  try {
    return new TextDecoder(charset).decode(bytes);
  } catch {
    // An unknown charset: latin1 keeps every byte visible rather than dropping the text.
    return bytes.toString('latin1');
  }
}

/**
 * Decodes RFC 2047 encoded words ("=?UTF-8?B?...?="). Adjacent words of one charset are decoded
 * together, since an encoder may split a multi-byte character across them.
 */
export function decodeEncodedWords(value: string): string {
  if (!value.includes('=?')) return value;
  // Whitespace between two encoded words is folding, not content (RFC 2047 §6.2).
  const text = value.replace(/\?=\s+=\?/g, '?==?');
  let decoded = '';
  let position = 0;
  let run: { charset: string; bytes: Buffer[] } | undefined;
  const flush = () => {
    if (run) decoded += decodeCharset(Buffer.concat(run.bytes), run.charset);
    run = undefined;
  };
  for (const match of text.matchAll(ENCODED_WORD)) {
    const [word, charsetSpec = '', encoding = '', payload = ''] = match;
    const charset = (charsetSpec.split('*')[0] ?? '').toLowerCase();
    const bytes = encoding.toUpperCase() === 'B' ? Buffer.from(payload, 'base64') : decodeQ(payload);
    if (run && match.index === position && run.charset === charset) {
      run.bytes.push(bytes);
    } else {
      flush();
      decoded += text.slice(position, match.index);
      run = { charset, bytes: [bytes] };
    }
    position = match.index + word.length;
  }
  flush();
  return decoded + text.slice(position);
}

export interface MailAddress {
  Name: string;
  Address: string;
}

/** An address header as Mailpit lists it: groups flattened, display names decoded. */
export function parseAddressList(value: string): MailAddress[] {
  if (!value) return [];
  return addressparser(value, { flatten: true })
    .filter((entry) => entry.name || entry.address)
    .map((entry) => ({ Name: decodeEncodedWords(entry.name), Address: entry.address }));
}

/** A Message-ID or Return-Path as Mailpit shows it: without its angle brackets. */
export const withoutAngleBrackets = (value: string): string => value.trim().replace(/^<+|>+$/g, '');
