import { Schema, type Connection } from 'mongoose';
import { findByIds, isDuplicateKeyError } from '@postbus/db';
import { KEY_SCOPES } from '../domain/credentials';
import type { ApiKeyDoc, KeyStore, RevocationClaim } from '../domain/ports/keys';

const apiKeySchema = new Schema<ApiKeyDoc>(
  {
    _id: { type: String, required: true },
    clientId: { type: String, required: true },
    name: { type: String, required: true },
    scope: { type: String, enum: [...KEY_SCOPES], required: true },
    projectId: { type: String, default: null },
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
 * When a key was last used, beside the key rather than on it: FerretDB writes back the whole
 * document on an update, so of two concurrent updates of one document one is lost (seen: 82 of
 * 100), and a last-used write racing a revocation could have undone the revocation.
 */
interface KeyUsageDoc {
  /** The key id. */
  _id: string;
  lastUsedAt: Date;
}

const keyUsageSchema = new Schema<KeyUsageDoc>(
  { _id: { type: String, required: true }, lastUsedAt: { type: Date, required: true } },
  { collection: 'api_key_usage', versionKey: false },
);

/**
 * The revocations of a client's full keys, numbered: `<clientId>#<n>` names the n-th, and the
 * client id alone holds `last`, the highest number seen claimed (a hint: written without
 * atomicity, it may lag, never lead). See KeyAdmin.revoke.
 */
interface RevocationDoc {
  _id: string;
  keyId?: string;
  at?: Date;
  last?: number;
}

const revocationSchema = new Schema<RevocationDoc>(
  { _id: { type: String, required: true }, keyId: String, at: Date, last: Number },
  { collection: 'api_key_revocations', versionKey: false },
);

/**
 * API keys, a document each (not an array inside the client): creating and revoking one is then a
 * single-document write, so two concurrent changes can never undo each other. The collection is
 * small (a few keys per client), which keeps FerretDB's scanning updates cheap.
 */
export class ApiKeyRepository implements KeyStore {
  private readonly Key;
  private readonly Usage;
  private readonly Revocation;

  constructor(private readonly connection: Connection) {
    this.Key = connection.model<ApiKeyDoc>('ApiKey', apiKeySchema);
    this.Usage = connection.model<KeyUsageDoc>('ApiKeyUsage', keyUsageSchema);
    this.Revocation = connection.model<RevocationDoc>('ApiKeyRevocation', revocationSchema);
  }

  async init(): Promise<void> {
    await Promise.all([this.Key.init(), this.Usage.init(), this.Revocation.init()]);
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
    const usage = keys.length
      ? await findByIds(
          this.Usage,
          keys.map((k) => k._id),
        )
      : [];
    const lastUsed = new Map(usage.map((u) => [u._id, u.lastUsedAt]));
    return keys
      .map((key) => ({ ...key, lastUsedAt: lastUsed.get(key._id) ?? key.lastUsedAt }))
      .sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime());
  }

  /** Marks the key revoked at `at` unless it is already; true when this call did it. */
  async markRevoked(keyId: string, at: Date): Promise<boolean> {
    const key = await this.Key.findOne({ _id: keyId }).lean<ApiKeyDoc>().exec();
    if (!key || key.revokedAt) return false;
    await this.Key.updateOne({ _id: keyId }, { $set: { revokedAt: at } }).exec();
    return true;
  }

  async touch(keyId: string, at: Date): Promise<void> {
    await this.Usage.updateOne({ _id: keyId }, { $set: { lastUsedAt: at } }, { upsert: true }).exec();
  }

  /** The client's latest revocation claim: from the remembered number, forward while a next one exists. */
  async latestRevocationClaim(clientId: string): Promise<RevocationClaim> {
    const head = await this.Revocation.findOne({ _id: clientId }).lean<RevocationDoc>().exec();
    let number = head?.last ?? 0;
    let claim =
      number > 0
        ? await this.Revocation.findOne({ _id: `${clientId}#${number}` })
            .lean<RevocationDoc>()
            .exec()
        : null;
    for (;;) {
      const next = await this.Revocation.findOne({ _id: `${clientId}#${number + 1}` })
        .lean<RevocationDoc>()
        .exec();
      if (!next) break;
      number += 1;
      claim = next;
    }
    return { number, keyId: claim?.keyId ?? null, at: claim?.at ?? null };
  }

  /**
   * Claims the client's revocation number `number` for the key: a unique `_id` insert, the one
   * write FerretDB makes atomic between connections, so of two claims of a number exactly one wins.
   * False when another revocation had it.
   */
  async claimRevocation(clientId: string, number: number, keyId: string, at: Date): Promise<boolean> {
    try {
      await this.Revocation.create({ _id: `${clientId}#${number}`, keyId, at });
    } catch (error) {
      if (isDuplicateKeyError(error)) return false;
      throw error;
    }
    await this.Revocation.updateOne({ _id: clientId }, { $max: { last: number } }, { upsert: true }).exec();
    return true;
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
