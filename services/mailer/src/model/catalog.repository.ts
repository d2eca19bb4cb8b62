import { Schema, type Connection } from 'mongoose';
import { catalogKey, type CatalogKind } from '@postbus/contracts';
import { isDuplicateKeyError } from '@postbus/db';
import type { CatalogEntities, CatalogLookup } from '../domain/ports/delivery';

interface CatalogDoc {
  _id: string;
  kind: CatalogKind;
  revision: number;
  deleted: boolean;
  data: unknown;
}

const catalogSchema = new Schema<CatalogDoc>(
  { _id: String, kind: String, revision: Number, deleted: Boolean, data: Schema.Types.Mixed },
  { collection: 'catalog', versionKey: false, minimize: false },
);

/**
 * The mailer's projection of the gateway's catalog, fed by the compacted catalog topic. A copy
 * replaces the stored one only when its revision is newer, so republished or reordered copies
 * change nothing. Reads go through a short in-memory cache: the catalog changes rarely and every
 * trigger reads four of its entities.
 */
export class CatalogProjection implements CatalogLookup {
  private readonly Catalog;
  /** Lookups in flight are shared: a burst of triggers for one email reads each entity once. */
  private readonly cache = new Map<string, { doc: Promise<CatalogDoc | null>; expires: number }>();

  constructor(
    connection: Connection,
    private readonly cacheTtlMs = 1_000,
  ) {
    this.Catalog = connection.model<CatalogDoc>('Catalog', catalogSchema);
  }

  async init(): Promise<void> {
    await this.Catalog.init();
  }

  async apply(kind: CatalogKind, id: string, revision: number, data: unknown, deleted: boolean): Promise<void> {
    const key = catalogKey(kind, id);
    try {
      await this.Catalog.replaceOne({ _id: key, revision: { $lt: revision } }, { kind, revision, deleted, data }, { upsert: true }).exec();
    } catch (error) {
      if (!isDuplicateKeyError(error)) throw error; // a copy as new or newer is stored already
    }
    this.cache.delete(key);
  }

  /** The live entity asked for; a deleted or unknown one is undefined. */
  async get<K extends CatalogKind>(kind: K, id: string): Promise<CatalogEntities[K] | undefined> {
    const key = catalogKey(kind, id);
    const now = Date.now();
    let cached = this.cache.get(key);
    if (!cached || cached.expires <= now) {
      const doc = this.Catalog.findById(key).lean<CatalogDoc>().exec();
      cached = { doc, expires: now + this.cacheTtlMs };
      this.cache.set(key, cached);
      // Absent entities are not kept once the lookup is over: they are usually about to arrive.
      doc.then(
        (found) => {
          if (!found && this.cache.get(key) === cached) this.cache.delete(key);
        },
        () => {
          if (this.cache.get(key) === cached) this.cache.delete(key);
        },
      );
    }
    const doc = await cached.doc;
    return doc && !doc.deleted ? (doc.data as CatalogEntities[K]) : undefined;
  }
}
