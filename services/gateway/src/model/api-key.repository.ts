import { Schema, type Connection } from 'mongoose';
import type { KeyScope } from '../domain/credentials';

export interface ApiKeyDoc {
  /** The public key id (`key_…`). */
  _id: string;
  clientId: string;
  name: string;
  scope: KeyScope;
  /** Hex SHA-256 of the key; the key itself is never stored. */
  hash: string;
  createdAt: Date;
  lastUsedAt: Date | null;
  revokedAt: Date | null;
}

const apiKeySchema = new Schema<ApiKeyDoc>(
  {
    _id: { type: String, required: true },
    clientId: { type: String, required: true },
    name: { type: String, required: true },
    scope: { type: String, enum: ['full', 'sdk'], required: true },
    hash: { type: String, required: true },
    createdAt: { type: Date, required: true },
    lastUsedAt: { type: Date, default: null },
    revokedAt: { type: Date, default: null },
  },
  { collection: 'api_keys', versionKey: false },
);
apiKeySchema.index({ hash: 1 }, { unique: true });
apiKeySchema.index({ clientId: 1 });

/**
 * API keys, a document each (not an array inside the client): creating and revoking one is then a
 * single-document write, so two concurrent changes can never undo each other. The collection is
 * small (a few keys per client), which keeps FerretDB's scanning updates cheap.
 */
export class ApiKeyRepository {
  private readonly Key;

  constructor(private readonly connection: Connection) {
    this.Key = connection.model<ApiKeyDoc>('ApiKey', apiKeySchema);
  }

  async init(): Promise<void> {
    await this.Key.init();
    await this.adoptEmbeddedKeys();
  }

  async create(key: Omit<ApiKeyDoc, 'lastUsedAt' | 'revokedAt'>): Promise<ApiKeyDoc> {
    const doc = { ...key, lastUsedAt: null, revokedAt: null };
    await this.Key.create(doc);
    return doc;
  }

  findByHash(hash: string): Promise<ApiKeyDoc | null> {
    return this.Key.findOne({ hash }).lean<ApiKeyDoc>().exec();
  }

  findById(keyId: string): Promise<ApiKeyDoc | null> {
    return this.Key.findOne({ _id: keyId }).lean<ApiKeyDoc>().exec();
  }

  async list(clientId: string): Promise<ApiKeyDoc[]> {
    const keys = await this.Key.find({ clientId }).lean<ApiKeyDoc[]>().exec();
    return keys.sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime());
  }

  /** Marks the key revoked (once); the stored key, or null when the client has no such key. */
  async revoke(clientId: string, keyId: string, at: Date): Promise<ApiKeyDoc | null> {
    const key = await this.Key.findOne({ _id: keyId }).lean<ApiKeyDoc>().exec();
    if (!key || key.clientId !== clientId) return null;
    if (key.revokedAt) return key;
    await this.Key.updateOne({ _id: keyId, revokedAt: null }, { $set: { revokedAt: at } }).exec();
    return { ...key, revokedAt: at };
  }

  async touch(keyId: string, at: Date): Promise<void> {
    await this.Key.updateOne({ _id: keyId }, { $set: { lastUsedAt: at } }).exec();
  }

  /**
   * Keys used to live in an array on the client document; they move here once (idempotent: each
   * keeps an id derived from its digest), then the array is dropped.
   */
  private async adoptEmbeddedKeys(): Promise<void> {
    const clients = this.connection.collection<{ clientId: string; keys?: Array<Record<string, unknown>> }>('clients');
    const legacy = await clients.find({ keys: { $exists: true } }).toArray();
    for (const client of legacy) {
      for (const key of client.keys ?? []) {
        const hash = String(key['hash']);
        await this.Key.updateOne(
          { _id: `key_${hash.slice(0, 20)}` },
          {
            $setOnInsert: {
              clientId: client.clientId,
              name: 'default',
              scope: key['scope'] === 'sdk' ? 'sdk' : 'full',
              hash,
              createdAt: key['createdAt'] instanceof Date ? key['createdAt'] : new Date(),
              lastUsedAt: null,
              revokedAt: key['revokedAt'] instanceof Date ? key['revokedAt'] : null,
            },
          },
          { upsert: true },
        ).exec();
      }
      await clients.updateOne({ clientId: client.clientId }, { $unset: { keys: '' } });
    }
  }
}
