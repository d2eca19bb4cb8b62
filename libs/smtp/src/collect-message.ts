import type { SMTPServerDataStream } from 'smtp-server';

/**
 * Reads the DATA of one SMTP transaction into memory. Bytes past the server's size limit are read
 * (the client must be heard out before the reply) but not kept; the caller checks
 * `stream.sizeExceeded` and refuses the message with a 552 of its own wording.
 */
export function collectMessage(stream: SMTPServerDataStream): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    stream.on('data', (chunk: Buffer) => {
      if (!stream.sizeExceeded) chunks.push(chunk);
    });
    stream.once('error', reject);
    // One chunk is the common case for small mail: handed on as it is, without a copy.
    stream.once('end', () => resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)));
  });
}
