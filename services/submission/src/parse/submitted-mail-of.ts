import libmime from 'libmime';
import type { AddressObject, EmailAddress, ParsedMail } from 'mailparser';
import type { HeaderField, MailAddress, SubmittedMail } from '../domain/submitted-mail';

/** mailparser's reading of a message, as simpleParser is told to make it: bodies as they are, cid: links kept. */
export const PARSER_OPTIONS = {
  // The HTML's cid: links stay (the inline parts travel with the send and keep their Content-IDs).
  keepCidLinks: true,
  // Only the parts the message has: no text made from its HTML, no HTML from its text.
  skipHtmlToText: true,
  skipTextToHtml: true,
  skipTextLinks: true,
  skipImageLinks: true,
} as const;

/** Every address of an address header, groups' members included, in order. */
function addressesOf(header: AddressObject | AddressObject[] | undefined): MailAddress[] {
  const flat = (entry: EmailAddress): MailAddress[] =>
    entry.group ? entry.group.flatMap(flat) : entry.address ? [{ address: entry.address, name: entry.name ?? '' }] : [];
  return [header ?? []].flat().flatMap((object) => object.value.flatMap(flat));
}

/** A header line's value: unfolded, its raw UTF-8 (8-bit headers) and its RFC 2047 encoded-words decoded. */
function headerValueOf(line: string): string {
  const colon = line.indexOf(':');
  const raw = line
    .slice(colon + 1)
    .replace(/\r?\n(?=[ \t])/g, '')
    .trim();
  const utf8 = Buffer.from(raw, 'binary').toString('utf8');
  try {
    return libmime.decodeWords(utf8);
  } catch {
    return utf8;
  }
}

function headersOf(parsed: ParsedMail): HeaderField[] {
  return parsed.headerLines
    .filter(({ key }) => key !== '')
    .map(({ line }) => ({ name: line.slice(0, Math.max(0, line.indexOf(':'))).trim(), value: headerValueOf(line) }));
}

/** The message as the domain reads it (SubmittedMail), from mailparser's reading of it. */
export function submittedMailOf(parsed: ParsedMail): SubmittedMail {
  return {
    from: addressesOf(parsed.from),
    to: addressesOf(parsed.to),
    cc: addressesOf(parsed.cc),
    replyTo: addressesOf(parsed.replyTo),
    ...(parsed.subject !== undefined ? { subject: parsed.subject } : {}),
    ...(parsed.html ? { html: parsed.html } : {}),
    ...(parsed.text ? { text: parsed.text } : {}),
    attachments: parsed.attachments.map((attachment) => ({
      ...(attachment.filename ? { filename: attachment.filename } : {}),
      contentType: attachment.contentType.toLowerCase(),
      content: attachment.content,
      ...(attachment.cid ? { contentId: attachment.cid } : {}),
      inline: attachment.related || attachment.contentDisposition === 'inline',
    })),
    headers: headersOf(parsed),
  };
}

/**
 * What makes a message malformed MIME beyond what mailparser forgives: no header field at all, or
 * a multipart body without its boundary (none declared, or one declared that the body never has),
 * whose parts could only be guessed. Undefined for a message whose structure reads.
 */
export function mimeProblem(parsed: ParsedMail, raw: Buffer): string | undefined {
  if (parsed.headerLines.every(({ key }) => key === '')) return 'The message has no header fields (it is not an RFC 5322 message)';
  const contentType = parsed.headers.get('content-type') as { value?: string; params?: Record<string, string> } | undefined;
  const type = (contentType?.value ?? '').toLowerCase();
  if (!type.startsWith('multipart/')) return undefined;
  const boundary = contentType?.params?.['boundary'];
  if (!boundary) return `Malformed MIME: the message is ${type} but its Content-Type has no boundary`;
  if (!raw.includes(`--${boundary}`)) return `Malformed MIME: the ${type} boundary "${boundary}" never appears in the body`;
  return undefined;
}
