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

/** The first bytes of a mail's DATA, and how many bytes it had in all. */
export interface MessageHead {
  head: Buffer;
  bytes: number;
}

/**
 * Reads the DATA of one SMTP transaction keeping its first `keepBytes` only, and counting the
 * rest as it streams by: a server that keeps a mail's head holds no more than that in memory,
 * whatever the client sends (the caller refuses an oversized mail once it has been heard out).
 */
export function collectMessageHead(stream: SMTPServerDataStream, keepBytes: number): Promise<MessageHead> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let kept = 0;
    let bytes = 0;
    stream.on('data', (chunk: Buffer) => {
      bytes += chunk.length;
      if (kept >= keepBytes) return;
      const part = chunk.length <= keepBytes - kept ? chunk : chunk.subarray(0, keepBytes - kept);
      chunks.push(part);
      kept += part.length;
    });
    stream.once('error', reject);
    stream.once('end', () => resolve({ head: chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks), bytes }));
  });
}
