import { readFileSync } from 'node:fs';

/**
 * Mail shaped to make a careless parser take time out of proportion to its size: long runs of what
 * a regular expression would backtrack over (blank lines, address-like runs, brackets, dashes),
 * huge report fields and deep MIME nesting. Each is about INBOUND_KEPT_BYTES, the most of a mail
 * the MX keeps, so a test on them bounds the worst a sender can make a read cost.
 */

/** What the MX keeps of a mail (INBOUND_KEPT_BYTES). */
export const KEPT = 256 * 1024;

/** `unit` repeated to `bytes` characters (cut to fit). */
export const run = (unit: string, bytes = KEPT): string => unit.repeat(Math.ceil(bytes / unit.length)).slice(0, bytes);

const mail = (head: string, body: string): Buffer => {
  const headers = `${head}\r\n\r\n`;
  return Buffer.from(headers + body.slice(0, Math.max(0, KEPT - headers.length)), 'latin1');
};

const bounceHeaders = [
  'From: Mail Delivery System <MAILER-DAEMON@relay.example>',
  'To: b.0a1b2c3d4e5f60718293a4b5c6d7e8f9.k7sx2mnpr4tqa3vd@pb-bounces.sender.test',
  'Subject: Undelivered Mail Returned to Sender',
  'Message-ID: <notice@relay.example>',
  'MIME-Version: 1.0',
].join('\r\n');

/** A plain-text bounce notice whose body is `body` after a first line that classifies it (so every step of reading a notice runs). */
export const notice = (body: string): Buffer =>
  mail(`${bounceHeaders}\r\nContent-Type: text/plain; charset=us-ascii`, `550 5.1.1 user unknown\r\n${body}`);

/** A plain-text bounce notice whose body is nothing but `body`. */
export const bareNotice = (body: string): Buffer => mail(`${bounceHeaders}\r\nContent-Type: text/plain; charset=us-ascii`, body);

/**
 * An RFC 3464 report whose recipient block carries `fields` (raw lines) after an Action, and whose
 * per-message block carries `messageFields`; the part is padded to the kept size by `padding`.
 */
export const deliveryReport = ({
  fields = 'Final-Recipient: rfc822; gone@dest.test',
  messageFields = 'Reporting-MTA: dns; relay.example',
  padding = '',
}: {
  fields?: string;
  messageFields?: string;
  padding?: string;
}): Buffer =>
  mail(
    `${bounceHeaders}\r\nContent-Type: multipart/report; report-type=delivery-status; boundary="b"`,
    [
      '--b',
      'Content-Type: text/plain',
      '',
      'Your mail could not be delivered.',
      '--b',
      'Content-Type: message/delivery-status',
      '',
      messageFields,
      '',
      'Action: failed',
      'Status: 5.1.1',
      fields,
      padding,
      '--b--',
      '',
    ].join('\r\n'),
  );

/** An RFC 3464 report whose recipient field `name` is `value`, taking the kept size. */
export const reportField = (name: string, value: string): Buffer => {
  const field = `${name}: ${value}`;
  return deliveryReport({ fields: `${field.slice(0, KEPT - 700)}\r\n` });
};

/** An RFC 5965 complaint whose feedback-report part carries `fields`. */
export const complaint = (fields: string): Buffer =>
  mail(
    [
      'From: fbl@mailbox.example',
      'To: fbl@pb-bounces.sender.test',
      'Subject: FW: complaint',
      'MIME-Version: 1.0',
      'Content-Type: multipart/report; report-type=feedback-report; boundary="b"',
    ].join('\r\n'),
    [
      '--b',
      'Content-Type: text/plain',
      '',
      'A complaint.',
      '--b',
      'Content-Type: message/feedback-report',
      '',
      'Feedback-Type: abuse',
      `${fields.slice(0, KEPT - 700)}`,
      '--b--',
      '',
    ].join('\r\n'),
  );

/** A notice with the header `name` of the kept size, wrapped as a header may be (folded every 76 characters or not at all). */
export const header = (name: string, value: string): Buffer =>
  Buffer.from(
    `${name}: ${value.slice(0, KEPT - 400)}\r\n${bounceHeaders}\r\nContent-Type: text/plain\r\n\r\n550 5.1.1 user unknown\r\n`,
    'latin1',
  );

/** A notice whose body, in the transfer encoding `encoding`, is `body`. */
export const encodedNotice = (encoding: string, body: string): Buffer =>
  mail(`${bounceHeaders}\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Transfer-Encoding: ${encoding}`, body);

/** A notice that quotes the returned mail as a copy (message/rfc822) whose header `name` takes the kept size. */
export const copyHeader = (name: string, value: string): Buffer =>
  mail(
    `${bounceHeaders}\r\nContent-Type: multipart/report; report-type=delivery-status; boundary="b"`,
    [
      '--b',
      'Content-Type: message/delivery-status',
      '',
      'Reporting-MTA: dns; relay.example',
      '',
      'Final-Recipient: rfc822; gone@dest.test',
      'Action: failed',
      'Status: 5.1.1',
      '',
      '--b',
      'Content-Type: message/rfc822',
      '',
      `${name}: ${value.slice(0, KEPT - 900)}`,
      'Message-ID: <msg_0a1b2c3d4e5f60718293a4b5c6d7e8f9@sender.test>',
      '',
      'Thanks for your order.',
      '--b--',
      '',
    ].join('\r\n'),
  );

/** A report whose returned copy (message/rfc822) is quoted-printable: what it decodes to is parsed again. */
export const encodedCopy = (encoded: string): Buffer =>
  mail(
    `${bounceHeaders}\r\nContent-Type: multipart/report; report-type=delivery-status; boundary="b"`,
    [
      '--b',
      'Content-Type: message/delivery-status',
      '',
      'Reporting-MTA: dns; relay.example',
      '',
      'Final-Recipient: rfc822; gone@dest.test',
      'Action: failed',
      '',
      '--b',
      'Content-Type: message/rfc822',
      'Content-Transfer-Encoding: quoted-printable',
      '',
      encoded.slice(0, KEPT - 700),
      '--b--',
      '',
    ].join('\r\n'),
  );

/** Multiparts nested as deep as the kept size allows, a notice at the bottom. */
export const nested = (bytes = KEPT): Buffer => {
  const opening: string[] = [];
  const closing: string[] = [];
  let size = 0;
  for (let depth = 0; size < bytes - 600; depth++) {
    const open = `Content-Type: multipart/mixed; boundary="${depth}"\r\n\r\n--${depth}\r\n`;
    const close = `--${depth}--\r\n`;
    opening.push(open);
    closing.unshift(close);
    size += open.length + close.length;
  }
  return Buffer.from(
    `${bounceHeaders}\r\n${opening.join('')}Content-Type: text/plain\r\n\r\n550 5.1.1 <gone@dest.test> user unknown\r\n${closing.join('')}`,
    'latin1',
  );
};

/** A multipart of as many small sibling parts as the kept size allows. */
export const manyParts = (): Buffer =>
  mail(
    `${bounceHeaders}\r\nContent-Type: multipart/mixed; boundary="b"`,
    run('--b\r\nContent-Type: text/plain\r\n\r\nx\r\n', KEPT - 600) + '--b--\r\n',
  );

/**
 * Every shape, by name: what the report reader is run on in the adversarial tests. The shapes the
 * expressions it used to have were quadratic on come first.
 */
export const adversarialMail = (): Array<[string, Buffer]> => [
  ['a notice of 64,000+ blank lines (LF)', notice(run('\n'))],
  ['a notice of blank lines (CRLF)', notice(run('\r\n'))],
  ['a notice of lines of white space', notice(run(' \t\r\n'))],
  ['a notice that is only blank lines', bareNotice(run('\n'))],
  ['a Final-Recipient of 256 KiB (no @)', reportField('Final-Recipient', `rfc822; ${run('a')}`)],
  ['a Final-Recipient of 256 KiB (a@a@a@…)', reportField('Final-Recipient', `rfc822; ${run('a@')}`)],
  ['a Final-Recipient of 256 KiB (<<<<…)', reportField('Final-Recipient', `rfc822; ${run('<')}`)],
  ['a Final-Recipient of 256 KiB (a@bbb…<)', reportField('Final-Recipient', `rfc822; a@${run('b', KEPT - 800)}<`)],
  ['an Original-Recipient of 256 KiB (no @)', reportField('Original-Recipient', `rfc822; ${run('a')}`)],
  ['an Original-Recipient of 256 KiB (a@a@a@…)', reportField('Original-Recipient', `rfc822; ${run('a@')}`)],
  ['an Original-Mail-From of 256 KiB', deliveryReport({ messageFields: `Original-Mail-From: ${run('a', KEPT - 700)}` })],
  ['an X-Postfix-Sender of 256 KiB (a@a@…)', deliveryReport({ messageFields: `X-Postfix-Sender: rfc822; ${run('a@', KEPT - 700)}` })],
  ['a Status of 256 KiB', reportField('Status', run('5.'))],
  ['a Diagnostic-Code of 256 KiB', reportField('Diagnostic-Code', `smtp; ${run('550 ')}`)],
  ['a recipient block continued over 64,000 lines', deliveryReport({ padding: run(' a\r\n', KEPT - 800) })],
  ['a delivery-status part of blank lines', deliveryReport({ padding: run('\r\n', KEPT - 800) })],
  ['an Original-Rcpt-To of 256 KiB', complaint(`Original-Rcpt-To: ${run('a')}`)],
  ['an Original-Rcpt-To of 256 KiB (a@a@…)', complaint(`Original-Rcpt-To: ${run('a@')}`)],
  ['a notice of a@a@a@…', notice(run('a@'))],
  ['a notice of <<<<…', notice(run('<'))],
  ['a notice of <a@bbb… without >', notice(`<a@${run('b')}`)],
  ['a notice of dotted words a.a.a.…', notice(run('a.'))],
  ['a notice of x@a.a.a.…', notice(`x@${run('a.')}`)],
  ['a notice of a@a.a-a@a.a-…', notice(run('a@a.a-'))],
  ['a notice of one line of dashes', notice(run('-'))],
  ['a notice of lines of dashes', notice(run('--\r\n'))],
  ['a notice of dashes and white space', notice(run('-- \r\n \r\n'))],
  ['a notice of one line without a newline', notice(run('x'))],
  ['a notice of one line of spaces', notice(run(' '))],
  ['a notice of Message-ID: lines without their >', notice(run('Message-ID: <aaaaaaaaaaaaaaaaaaaa\r\n'))],
  ['a notice of one Message-ID: <aaa… line', notice(`Message-ID: <${run('a')}`)],
  ['a notice of one Message-ID: line of spaces', notice(`Message-ID:${run(' ')}`)],
  ['a notice of reply codes', notice(run('550 '))],
  ['a notice of enhanced codes', notice(run('5.1.1.'))],
  ['a From of a@a@a@…', header('From', run('a@'))],
  ['a From of <<<<…', header('From', run('<'))],
  ['a From of "a" <a@a', header('From', run('"a" <a@a'))],
  ['a From of 64,000 addresses', header('From', run('a<b>,'))],
  ['a From of """"…', header('From', run('"'))],
  ['a From of encoded words', header('From', run('=?x?B?YQ==?= '))],
  ['a Subject of 256 KiB', header('Subject', run('delivery '))],
  ['a Content-Type of 256 KiB of parameters', header('Content-Type', `text/plain${run('; a=b')}`)],
  ['a Content-Type of RFC 2231 continuations', header('Content-Type', `text/plain${run("; a*0*=utf-8''b")}`)],
  ['a Subject of encoded words', header('Subject', run('=?utf-8?q?a?= '))],
  ['a Subject of an unterminated encoded word', header('Subject', `=?utf-8?b?${run('a')}`)],
  ['a Subject of =?=?=?…', header('Subject', run('=?'))],
  ['a header folded over 64,000 lines', header('X-Folded', run('a\r\n '))],
  ['a quoted-printable body of soft line breaks', encodedNotice('quoted-printable', run('=\r\n'))],
  ['a quoted-printable body of =', encodedNotice('quoted-printable', run('='))],
  ['a base64 body of what is not base64', encodedNotice('base64', run('!'))],
  ['a copy whose Return-Path is 256 KiB (a@a@…)', copyHeader('Return-Path', run('a@'))],
  ['a copy whose Return-Path is 256 KiB (<<<<…)', copyHeader('Return-Path', run('<'))],
  ['a copy whose Message-ID is 256 KiB', copyHeader('Message-ID', `<${run('a')}`)],
  ['a header of bare CRs', header('Subject', `a${run('\r')}`)],
  ['a header of CR LF CR…', header('Subject', run('\r\n\r'))],
  ['a quoted-printable body of spaces that end no line', encodedNotice('quoted-printable', `550 user unknown a${run(' ')}`)],
  ['a quoted-printable body of tabs and spaces', encodedNotice('quoted-printable', `550 user unknown a${run(' \t')}`)],
  ['a quoted-printable body of runs of 32 spaces', encodedNotice('quoted-printable', run(`${' '.repeat(32)}x`))],
  ['a quoted-printable copy of =0D (bare CRs) in a header', encodedCopy(`Subject: a${run('=0D')}`)],
  [
    'a quoted-printable copy of =20 (spaces)',
    encodedCopy(`Subject: a\r\nContent-Transfer-Encoding: quoted-printable\r\n\r\na${run('=20', KEPT - 1000)}x`),
  ],
  ['multiparts nested as deep as 256 KiB allows', nested()],
  ['thousands of sibling parts', manyParts()],
];

/** The CPU time this thread has used (ms), from Linux's /proc; undefined elsewhere. */
function threadCpuMs(): number | undefined {
  try {
    const stat = readFileSync('/proc/thread-self/schedstat', 'latin1'); // "<ns on the CPU> <ns waiting> <slices>"
    return Number(stat.slice(0, stat.indexOf(' '))) / 1e6;
  } catch {
    return undefined;
  }
}

/**
 * How long `job` took: this thread's CPU time where the platform says it (a machine busy with other
 * work does not stretch it), else the wall clock.
 */
export async function timed<T>(job: () => T | Promise<T>): Promise<{ ms: number; result: T }> {
  const cpu = threadCpuMs();
  const wall = performance.now();
  const result = await job();
  const cpuAfter = threadCpuMs();
  return { ms: cpu !== undefined && cpuAfter !== undefined ? cpuAfter - cpu : performance.now() - wall, result };
}

/** A small seeded generator (mulberry32), so that a failing case can be run again. */
export function random(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
