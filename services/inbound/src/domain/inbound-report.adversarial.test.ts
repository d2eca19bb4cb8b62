import { adversarialMail, KEPT, run, timed } from '../../test/adversarial-mail';
import { classifyNotice, smtpCodes } from './bounce-class';
import { readInboundReport } from './inbound-report';
import { MAX_BLANK_RUN, mimeInput } from './mime-input';
import { noticeRecipient, noticeText, plainAddress } from './notice-text';
import { ReturnPathTokens } from '@postbus/crypto';
import { bareAddress, readFieldBlocks, untyped } from './report-fields';
import { carriesToken } from './token-presence';

const tokens = new ReturnPathTokens('an-adversarial-test-secret-of-32-chars-or-more');

/**
 * Each expression and scanner that reads a report, and the reader as a whole, on 256 KiB (what the
 * MX keeps of a mail) shaped to make backtracking expressions take quadratic time. The expressions
 * these replaced took minutes on such input (a notice of 256 KiB of blank lines: 160 s, a
 * Final-Recipient of 256 KiB: 98 s); read in one pass, each takes milliseconds. Times are this
 * thread's CPU time, so a machine busy with other work does not fail them.
 */
const EXPRESSION_BOUND_MS = 250;
/**
 * The whole reader, MIME parsing included (64,000 addresses in a From cost mailparser ~200 ms on
 * their own): INBOUND_PARSE_BUDGET_MS's default, so no such mail is dropped for its time.
 */
const READER_BOUND_MS = 2_000;

const strings: Array<[string, string]> = [
  ['64,000+ blank lines (LF)', run('\n')],
  ['blank lines (CRLF)', run('\r\n')],
  ['lines of white space', run(' \t\r\n')],
  ['bare CRs', run('\r')],
  ['one line of spaces', run(' ')],
  ['one line without a newline', run('x')],
  ['a@a@a@…', run('a@')],
  ['<<<<…', run('<')],
  ['>>>>…', run('>')],
  ['<a@bbb… without >', `<a@${run('b')}`],
  ['a@bbb…<', `a@${run('b')}<`],
  ['aaa… (no @)', run('a')],
  ['dotted words a.a.a.…', run('a.')],
  ['x@a.a.a.…', `x@${run('a.')}`],
  ['x@aaa… without a dot', `x@${run('a')}`],
  ['a@a.a-a@a.a-…', run('a@a.a-')],
  ['one line of dashes', run('-')],
  ['lines of dashes', run('--\r\n')],
  ['dashes and white space', run('-- \r\n \r\n')],
  ['dashes, then white space without a heading', `--${run(' \r\n')}`],
  ['Return-Path: after white space', `${run('\n')}Return-Path:`],
  ['reply codes', run('550 ')],
  ['enhanced codes', run('5.1.1.')],
  ['digits', run('5')],
  ['field-like lines', run('a: b\r\n')],
  ['continued lines', `a: b\r\n${run(' c\r\n')}`],
  ['colons', run(':')],
  ['semicolons', run(';')],
  ['List-Unsubscribe mailto openers', `List-Unsubscribe: ${run('<mailto:')}`],
  ['a folded List-Unsubscribe', `List-Unsubscribe: x${run('\r\n <')}`],
  ['token look-alikes', run('b.0123456789abcdef0123456789abcdef.aaaaaaaaaaaaaaaaaaaa@')],
  ['token-shaped runs without an @', run('u1.0123456789abcdef0123456789abcdef.')],
  ['base64 lines', run('QUFBQUFBQUFBQUFBQUFBQUFB\r\n')],
  ['quoted-printable soft breaks', run('=\r\n')],
];

describe('each expression that reads a report, on 256 KiB of what makes expressions backtrack', () => {
  const scanners: Array<[string, (text: string) => unknown]> = [
    ['bareAddress', bareAddress],
    ['bareAddress of untyped', (text) => bareAddress(untyped(`rfc822; ${text}`))],
    ['noticeText', noticeText],
    ['noticeRecipient', noticeRecipient],
    ['plainAddress', plainAddress],
    ['readFieldBlocks', readFieldBlocks],
    ['smtpCodes', smtpCodes],
    ['classifyNotice', classifyNotice],
    ['mimeInput', (text) => mimeInput(Buffer.from(text, 'latin1'))],
    ['carriesToken', (text) => carriesToken({ head: Buffer.from(text, 'latin1'), rcptTo: [] }, tokens)],
  ];

  it.each(scanners)(`%s takes less than ${EXPRESSION_BOUND_MS} ms on each`, async (_name, scan) => {
    scan('warm up');
    const slow: string[] = [];
    for (const [shape, text] of strings) {
      expect(text.length).toBeGreaterThanOrEqual(KEPT);
      const { ms } = await timed(() => scan(text));
      if (ms >= EXPRESSION_BOUND_MS) slow.push(`${shape}: ${ms.toFixed(0)} ms`);
    }
    expect(slow).toEqual([]);
  });

  it('the scanners still find what is there at the end of 256 KiB', () => {
    expect(bareAddress(`${run(' ')}<Ann@Example.COM>`)).toBe('ann@example.com');
    expect(bareAddress(`${run('a@')}b`)).toBe('a@b'); // the local part runs back to the previous @ and no further
    expect(noticeText(`${run('\n')}\r\nReturn-Path: <a@b>`)).toBe('');
    expect(noticeText(`550 user unknown${run('\n')}--- Original message ---`)).toBe('550 user unknown\n');
    expect(noticeRecipient(`${run('a.')} <gone@dest.test>`)).toBe('gone@dest.test');
    expect(plainAddress(`${run('<')} gone@dest.test`)).toBe('gone@dest.test');
    expect(plainAddress(`x@${run('a.')}ab`)).toBe(`x@${run('a.')}ab`);
  });

  it(`mimeInput makes bare CRs spaces and cuts runs of white space to ${MAX_BLANK_RUN}, and leaves a mail without either as it is`, () => {
    expect(mimeInput(Buffer.from('a\rb\r\nc\r')).toString()).toBe('a b\r\nc ');
    expect(mimeInput(Buffer.from(`a${' \t'.repeat(40)}b`)).toString()).toBe(`a${' \t'.repeat(MAX_BLANK_RUN / 2)}b`);
    expect(mimeInput(Buffer.from(`a\r${' '.repeat(MAX_BLANK_RUN)}b`)).toString()).toBe(`a${' '.repeat(MAX_BLANK_RUN)}b`);
    const plain = Buffer.from(`Subject: x\r\n\r\n${' '.repeat(MAX_BLANK_RUN)}\r\n`);
    expect(mimeInput(plain)).toBe(plain);
  });
});

describe('reading a report of 256 KiB shaped to make a parser backtrack', () => {
  const kinds = new Set(['delivery_status', 'complaint', 'auto_reply', 'unclassified']);

  beforeAll(async () => {
    // The first reads compile mailparser's paths: not what a mail costs.
    for (const [, raw] of adversarialMail()) await readInboundReport(raw.subarray(0, 4096));
  });

  it.each(adversarialMail())(`%s: an answer in less than ${READER_BOUND_MS} ms`, async (_shape, raw) => {
    expect(raw.length).toBeGreaterThan(KEPT - 1024);
    expect(raw.length).toBeLessThanOrEqual(KEPT);
    const { ms, result } = await timed(() => readInboundReport(raw));
    expect(kinds.has(result.kind)).toBe(true);
    expect(ms).toBeLessThan(READER_BOUND_MS);
  });

  it('what the notices say is still read past the runs', async () => {
    const [, blankLines] = adversarialMail()[0]!;
    expect(await readInboundReport(blankLines)).toMatchObject({
      kind: 'delivery_status',
      format: 'notice',
      outcomes: [{ action: 'failed', status: '5.1.1', bounce: 'hard' }],
    });
  });
});
