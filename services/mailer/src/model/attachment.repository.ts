import { Schema, type Connection } from 'mongoose';
import { ATTACHMENT_LIMITS } from '@postbus/contracts';
import { growing } from '@postbus/db';
import { chunkCount, chunkId } from '../domain/attachment-chunks';

interface ChunkDoc {
  /** `<messageId>:<position>:<chunk>`: see attachment-chunks. */
  _id: string;
  data: Buffer;
}

const chunkSchema = growing(new Schema<ChunkDoc>({ _id: String, data: Buffer }, { collection: 'attachment_chunks', versionKey: false }));

/** A stored chunk as the driver hands it back from a lean read: a BSON Binary, or a Buffer. */
const bytesOf = (data: unknown): Buffer => {
  if (Buffer.isBuffer(data)) return data;
  const binary = data as { buffer: Uint8Array; position?: number };
  return Buffer.from(binary.buffer.buffer, binary.buffer.byteOffset, binary.position ?? binary.buffer.byteLength);
};

/**
 * The content of messages' attachments, stored once, in chunks of at most
 * ATTACHMENT_LIMITS.chunkBytes, each a document read, written and deleted by `_id` alone. A
 * message's attachments are its set: positions 0, 1, … each chunks 0, 1, …, written in that
 * order, so a set is found (and deleted) by probing ids, with no list of its own.
 */
export class AttachmentStore {
  private readonly Chunk;

  constructor(connection: Connection) {
    this.Chunk = connection.model<ChunkDoc>('AttachmentChunk', chunkSchema);
  }

  async init(): Promise<void> {
    await this.Chunk.init();
  }

  /** Stores one attachment of a message, chunk after chunk; storing it again (a retried request) writes the same documents. */
  async store(messageId: string, position: number, bytes: Buffer): Promise<void> {
    const { chunkBytes } = ATTACHMENT_LIMITS;
    for (let k = 0; k < chunkCount(bytes.length); k++) {
      const data = bytes.subarray(k * chunkBytes, (k + 1) * chunkBytes);
      await this.Chunk.replaceOne(
        { _id: chunkId(messageId, position, k) },
        { _id: chunkId(messageId, position, k), data },
        { upsert: true },
      ).exec();
    }
  }

  /** One attachment's bytes (`size` as the trigger gave it), or null when a chunk is missing (erased, purged, never stored). */
  async read(messageId: string, position: number, size: number): Promise<Buffer | null> {
    const chunks = await Promise.all(
      Array.from({ length: chunkCount(size) }, (_, k) =>
        this.Chunk.findById(chunkId(messageId, position, k))
          .lean<ChunkDoc>()
          .exec(),
      ),
    );
    if (chunks.some((c) => c === null)) return null;
    return Buffer.concat(chunks.map((c) => bytesOf(c!.data)));
  }

  /** Deletes the attachments of messages (erasure, retention) by probing their chunks' ids; returns how many chunks went. */
  async deleteSets(messageIds: string[]): Promise<number> {
    let deleted = 0;
    for (const messageId of messageIds) {
      for (let position = 0; ; position++) {
        let k = 0;
        while ((await this.Chunk.deleteOne({ _id: chunkId(messageId, position, k) }).exec()).deletedCount === 1) k++;
        deleted += k;
        if (k === 0) break;
      }
    }
    return deleted;
  }
}
