import { PassThrough } from 'node:stream';
import { createLogger, maskEmails, withLogContext } from './index';

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
  });

  it('when a line is written inside a context, then it carries the request id and masks PII', async () => {
    const { logger, lines } = capture();
    withLogContext({ requestId: 'req_1' }, () => {
      logger.info('created user bob@example.com', { user: { email: 'bob@example.com' }, apiKey: 'pb_secret' });
    });
    await new Promise((r) => setImmediate(r));
    expect(lines).toHaveLength(1);
    const line = JSON.stringify(lines[0]);
    expect(line).not.toContain('bob@example.com');
    expect(line).not.toContain('pb_secret');
    expect(lines[0]).toMatchObject({ service: 'test', requestId: 'req_1', level: 'info' });
  });
});
