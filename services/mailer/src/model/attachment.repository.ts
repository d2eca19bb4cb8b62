import { Schema, type Connection } from 'mongoose';
import { ATTACHMENT_LIMITS } from '@postbus/contracts';
import { growing, isDuplicateKeyError, KeyedSerializer } from '@postbus/db';
import { chunkCount, chunkId } from '../domain/attachment-chunks';
import type { MessageAttachments } from '../domain/ports/messages';

interface ChunkDoc {
  /** `<messageId>:<position>:<chunk>`: see attachment-chunks. */
  _id: string;
  data: Buffer;
}

const chunkSchema = growing(new Schema<ChunkDoc>({ _id: String, data: Buffer }, { collection: 'attachment_chunks', versionKey: false }));

/** How many bytes of attachments a project holds: `_id` is the project id. */
interface UsageDoc {
  _id: string;
  bytes: number;
}

const usageSchema = new Schema<UsageDoc>({ _id: String, bytes: Number }, { collection: 'attachment_usage', versionKey: false });

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
 * order, so a set is found (and deleted) by probing ids, with no list of its own. Each project's
 * stored bytes are counted, as files are stored and deleted, against its quota. One process
 * changes a project's count one change at a time; two mailer instances storing for one project at
 * once may, on the embedded store, lose one of their changes (MongoDB's `$inc` is atomic).
 */
export class AttachmentStore implements MessageAttachments {
  private readonly Chunk;

  private readonly Usage;

  /** `quotaBytes`: how many bytes of attachments one project may hold (0: no bound). */
  constructor(
    connection: Connection,
    private readonly quotaBytes = 0,
  ) {
    this.Chunk = connection.model<ChunkDoc>('AttachmentChunk', chunkSchema);
    this.Usage = connection.model<UsageDoc>('AttachmentUsage', usageSchema);
  }

  async init(): Promise<void> {
    await Promise.all([this.Chunk.init(), this.Usage.init()]);
  }

  /**
   * Stores one attachment of a message, chunk after chunk, unless the project's quota cannot take
   * it (false; nothing is written). Storing it again (a retried request) writes the same documents
   * and counts no byte twice. The bytes are counted before they are written, so sends racing for
   * the last of the quota are refused rather than let past it; a write that fails gives back what
   * it did not write, but a mailer killed in between keeps counting it (the quota errs toward refusing).
   */
  async store(projectId: string, messageId: string, position: number, bytes: Buffer): Promise<boolean> {
    if (!(await this.reserve(projectId, bytes.length))) return false;
    const { chunkBytes } = ATTACHMENT_LIMITS;
    let uncounted = 0; // reserved, and not new: there before (counted when first stored), or never written
    let done = 0;
    try {
      for (let k = 0; k < chunkCount(bytes.length); k++) {
        const data = bytes.subarray(k * chunkBytes, (k + 1) * chunkBytes);
        const written = await this.Chunk.replaceOne(
          { _id: chunkId(messageId, position, k) },
          { _id: chunkId(messageId, position, k), data },
          { upsert: true },
        ).exec();
        if (written.upsertedCount === 0) uncounted += data.length;
        done += data.length;
      }
    } catch (error) {
      await this.release(projectId, uncounted + bytes.length - done);
      throw error;
    }
    await this.release(projectId, uncounted);
    return true;
  }

  /** How many bytes of attachments a project holds. */
  async usage(projectId: string): Promise<number> {
    return (await this.Usage.findById(projectId).lean<UsageDoc>().exec())?.bytes ?? 0;
  }

  /** Counts bytes about to be stored, unless that takes the project past its quota. */
  private async reserve(projectId: string, bytes: number): Promise<boolean> {
    if (bytes === 0) return true;
    return this.countChanges.run(projectId, async () => {
      const after = await this.add(projectId, bytes);
      if (this.quotaBytes === 0 || after <= this.quotaBytes) return true;
      await this.add(projectId, -bytes);
      return false;
    });
  }

  private async release(projectId: string, bytes: number): Promise<void> {
    if (bytes > 0) await this.countChanges.run(projectId, () => this.add(projectId, -bytes));
  }

  /** A project's count changes one after another (see KeyedSerializer: the embedded store loses racing `$inc`s). */
  private readonly countChanges = new KeyedSerializer();

  /** Adds to a project's count; returns the count after. A project's first two files may race to create it: the loser adds to the winner's. */
  private async add(projectId: string, bytes: number, retried = false): Promise<number> {
    try {
      const doc = await this.Usage.findOneAndUpdate({ _id: projectId }, { $inc: { bytes } }, { upsert: true, returnDocument: 'after' })
        .lean<UsageDoc>()
        .exec();
      return doc?.bytes ?? bytes;
    } catch (error) {
      if (retried || !isDuplicateKeyError(error)) throw error;
      return this.add(projectId, bytes, true);
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

  /**
   * Deletes the attachments of a project's messages (erasure, retention, a refused send) by probing
   * their chunks' ids, and counts their bytes off the project's; returns how many chunks went.
   */
  async deleteSets(projectId: string, messageIds: string[]): Promise<number> {
    let deleted = 0;
    let bytes = 0;
    for (const messageId of messageIds) {
      for (let position = 0; ; position++) {
        let k = 0;
        for (;;) {
          const chunk = await this.Chunk.findOneAndDelete({ _id: chunkId(messageId, position, k) })
            .lean<ChunkDoc>()
            .exec();
          if (!chunk) break;
          bytes += bytesOf(chunk.data).length;
          k++;
        }
        deleted += k;
        if (k === 0) break;
      }
    }
    await this.release(projectId, bytes);
    return deleted;
  }
}
