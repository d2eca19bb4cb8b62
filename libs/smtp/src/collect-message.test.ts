import { PassThrough } from 'node:stream';
import type { SMTPServerDataStream } from 'smtp-server';
import { collectMessage, collectMessageHead } from './collect-message';

/** A DATA stream as smtp-server hands it over: a readable that says when the size limit was passed. */
function dataStream(): PassThrough & { sizeExceeded: boolean } {
  return Object.assign(new PassThrough(), { sizeExceeded: false });
}

describe('collectMessage', () => {
  it('returns every byte of the message', async () => {
    const stream = dataStream();
    const collected = collectMessage(stream as unknown as SMTPServerDataStream);
    stream.write(Buffer.from('Subject: hi\r\n\r\n'));
    stream.end(Buffer.from('body\r\n'));
    expect((await collected).toString()).toBe('Subject: hi\r\n\r\nbody\r\n');
  });

  it('reads on past the size limit but keeps nothing after it', async () => {
    const stream = dataStream();
    const collected = collectMessage(stream as unknown as SMTPServerDataStream);
    stream.write(Buffer.from('kept'));
    await new Promise((resolve) => setImmediate(resolve));
    stream.sizeExceeded = true;
    stream.end(Buffer.from('dropped'));
    expect((await collected).toString()).toBe('kept');
  });

  it('rejects when the stream fails', async () => {
    const stream = dataStream();
    const collected = collectMessage(stream as unknown as SMTPServerDataStream);
    stream.destroy(new Error('connection reset'));
    await expect(collected).rejects.toThrow('connection reset');
  });
});

describe('collectMessageHead', () => {
  it('keeps the first bytes only, and counts every byte', async () => {
    const stream = dataStream();
    const collected = collectMessageHead(stream as unknown as SMTPServerDataStream, 10);
    stream.write(Buffer.from('Subject: '));
    stream.write(Buffer.from('hi\r\n\r\n'));
    for (let i = 0; i < 100; i++) stream.write(Buffer.alloc(1000, 'x'));
    stream.end();
    const { head, bytes } = await collected;
    expect(head.toString()).toBe('Subject: h');
    expect(bytes).toBe(15 + 100_000);
  });
});
