import { PassThrough } from 'node:stream';
import { createLogger, maskEmails, MAX_LOGGED_STRING, redact } from './index';

function capture() {
  const stream = new PassThrough();
  const lines: Record<string, unknown>[] = [];
  stream.on('data', (chunk: Buffer) => {
    for (const line of chunk.toString().split('\n').filter(Boolean)) lines.push(JSON.parse(line) as Record<string, unknown>);
  });
  return { logger: createLogger({ service: 'test', stream }), lines };
}

describe('logger', () => {
  it('masks email addresses in strings', () => {
    expect(maskEmails('sent to Jane.Doe@example.co.uk today')).toBe('sent to J***@e***.co.uk today');
    expect(maskEmails('a@b.io, x.y+z@mail-1.example.com; not@an-address and a@b@c.org')).toBe(
      'a***@b***.io, x***@m***.example.com; not@an-address and a@b***@c***.org',
    );
    expect(maskEmails('no address here @ all, or @example.com')).toBe('no address here @ all, or @example.com');
  });

  it('13.7 logging: 100 KB without an @ is masked in linear time', () => {
    const long = 'a'.repeat(100_000);
    const started = performance.now();
    expect(maskEmails(long)).toBe(long);
    expect(performance.now() - started).toBeLessThan(50);
  });

  it('13.7 logging: long runs around an @ that is no address are masked in linear time', () => {
    const long = 'a'.repeat(100_000);
    const started = performance.now();
    expect(maskEmails(`${long}@`)).toBe(`${long}@`);
    expect(maskEmails(`${long}@${'b'.repeat(100_000)}`)).toHaveLength(200_001);
    expect(maskEmails('a@'.repeat(50_000))).toHaveLength(100_000);
    expect(maskEmails(`${'x.'.repeat(50_000)}@${'e.1'.repeat(30_000)}`)).toHaveLength(190_001);
    // The regex took seconds for the first of these alone.
    expect(performance.now() - started).toBeLessThan(500);
  });

  it('13.7 logging: each logged string is capped, masked before it is cut', async () => {
    const value = `${'z'.repeat(MAX_LOGGED_STRING - 10)} ann@example.com ${'z'.repeat(10_000)}`;
    const { note } = redact({ note: value }) as { note: string };
    expect(note).not.toContain('ann@');
    expect(note.startsWith(`${'z'.repeat(MAX_LOGGED_STRING - 10)} a***@e`)).toBe(true);
    expect(note).toMatch(/…\[\d+ more characters\]$/);
    const { logger, lines } = capture();
    logger.info('x'.repeat(100_000), { body: 'y'.repeat(100_000), nested: { list: ['w'.repeat(100_000)] } });
    await new Promise((r) => setImmediate(r));
    const line = JSON.stringify(lines[0]);
    expect(line.length).toBeLessThan(4 * (MAX_LOGGED_STRING + 100));
    expect(lines[0]!['body']).toBe(`${'y'.repeat(MAX_LOGGED_STRING)}…[${100_000 - MAX_LOGGED_STRING} more characters]`);
  });

  it("when a line is written by a request's child logger, then it carries the request id and masks PII", async () => {
    const { logger, lines } = capture();
    logger.child({ requestId: 'req_1' }).info('created user bob@example.com', { user: { email: 'bob@example.com' }, apiKey: 'pb_secret' });
    await new Promise((r) => setImmediate(r));
    expect(lines).toHaveLength(1);
    const line = JSON.stringify(lines[0]);
    expect(line).not.toContain('bob@example.com');
    expect(line).not.toContain('pb_secret');
    expect(lines[0]).toMatchObject({ service: 'test', requestId: 'req_1', level: 'info' });
  });
});
