import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { adversarialMail, random, timed } from '../../test/adversarial-mail';
import { readInboundReport } from './inbound-report';

const root = join(__dirname, '../../fixtures');
const fixtures = readdirSync(root, { recursive: true, encoding: 'utf8' })
  .filter((path) => path.endsWith('.eml'))
  .map((path) => readFileSync(join(root, path)));

type Mutation = (raw: Buffer, next: () => number) => Buffer;
/** What the reader's old expressions, and its MIME parser's dependencies, backtracked over. */
const hostileRuns = [
  '\n',
  '\r\n',
  ' \t\r\n',
  '\r',
  '\r\n\r',
  ' ',
  '\t ',
  '-',
  '--\r\n',
  'a',
  'a.',
  'a@',
  '<',
  '<a@',
  '5.1.1.',
  '=20',
  '=0D',
];
const at = (raw: Buffer, next: () => number) => Math.floor(next() * raw.length);
const mutations: Record<string, Mutation> = {
  truncated: (raw, next) => raw.subarray(0, at(raw, next)),
  'bytes flipped': (raw, next) => {
    const copy = Buffer.from(raw);
    for (let i = 0; i < 20; i++) copy[at(copy, next)] = Math.floor(next() * 256);
    return copy;
  },
  'a line removed': (raw, next) => {
    const lines = raw.toString('latin1').split('\n');
    lines.splice(Math.floor(next() * lines.length), 1);
    return Buffer.from(lines.join('\n'), 'latin1');
  },
  'boundaries broken': (raw) => Buffer.from(raw.toString('latin1').replace(/boundary="?([^";\s]+)"?/i, 'boundary="$1-gone"'), 'latin1'),
  'a block repeated': (raw, next) => {
    const start = at(raw, next);
    return Buffer.concat([
      raw.subarray(0, start),
      Buffer.from(
        raw
          .subarray(start, start + 400)
          .toString('latin1')
          .repeat(50),
        'latin1',
      ),
      raw.subarray(start),
    ]);
  },
  'a run that backtracking expressions choke on, inserted': (raw, next) => {
    const start = at(raw, next);
    const unit = hostileRuns[Math.floor(next() * hostileRuns.length)]!;
    const run = unit.repeat(Math.ceil((1 + next() * 16_384) / unit.length));
    return Buffer.concat([raw.subarray(0, start), Buffer.from(run, 'latin1'), raw.subarray(start)]);
  },
  'report fields garbled': (raw, next) =>
    Buffer.from(
      raw
        .toString('latin1')
        .replace(/^(Action|Status|Final-Recipient|Feedback-Type|Diagnostic-Code):.*$/gim, (line) =>
          next() < 0.5 ? line.replace(':', '') : `${line}\u0000;;;<<>>`,
        ),
      'latin1',
    ),
};

const kinds = new Set(['delivery_status', 'complaint', 'auto_reply', 'unclassified']);
/** No mutation of a fixture (at most 256 KiB) takes the reader this long (this thread's CPU time): nothing it does is quadratic. */
const READ_BOUND_MS = 2_000;

describe('reading malformed mail (a seeded fuzz of every fixture)', () => {
  it.each(Object.keys(mutations))('%s: always an answer of a known kind, never an exception', async (name) => {
    const next = random(name.length * 7919);
    for (const raw of fixtures)
      for (let round = 0; round < 8; round++) {
        const { ms, result: report } = await timed(() => readInboundReport(mutations[name]!(raw, next)));
        expect(kinds.has(report.kind)).toBe(true);
        expect(ms).toBeLessThan(READ_BOUND_MS);
        if (report.kind === 'delivery_status')
          for (const outcome of report.outcomes) expect([undefined, 'hard', 'soft']).toContain(outcome.bounce);
      }
  });

  it('nested multiparts 300 deep and a 2 MB header line are read without an exception', async () => {
    let body = 'Content-Type: text/plain\r\n\r\nhello\r\n';
    for (let depth = 0; depth < 300; depth++)
      body = `Content-Type: multipart/mixed; boundary="b${depth}"\r\n\r\n--b${depth}\r\n${body}--b${depth}--\r\n`;
    const nested = Buffer.from(`From: MAILER-DAEMON@odd.example\r\nSubject: Undelivered\r\n${body}`);
    expect(kinds.has((await readInboundReport(nested)).kind)).toBe(true);
    const long = Buffer.from(`From: a@b.example\r\nSubject: ${'x'.repeat(2_000_000)}\r\n\r\nbody\r\n`);
    expect(kinds.has((await readInboundReport(long)).kind)).toBe(true);
  });

  it('the adversarial shapes of 256 KiB, cut short or with bytes flipped: an answer of a known kind, in time', async () => {
    const next = random(256 * 1024);
    const shapes = adversarialMail();
    for (const [i, [, raw]] of shapes.entries()) {
      const mutation = i % 2 === 0 ? mutations.truncated! : mutations['bytes flipped']!;
      const { ms, result: report } = await timed(() => readInboundReport(mutation(raw, next)));
      expect(kinds.has(report.kind)).toBe(true);
      expect(ms).toBeLessThan(READ_BOUND_MS);
    }
  });
});
