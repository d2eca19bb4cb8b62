import { Schema, Types, type Connection, type SchemaDefinition } from 'mongoose';
import { KeyedSerializer } from '@postbus/db';
import type { CatalogChange } from '../domain/ports/catalog';

/** Who saved a version: the API key that proved the request, directly or through an admin session it opened. */
export interface SavedBy {
  keyId: string;
  via: 'key' | 'session';
}

/** An entity whose saves append numbered versions, one of which is published (what sends use). */
interface HeadDoc {
  _id: Types.ObjectId;
  clientId: string;
  projectId: string;
  name: string;
  /** The newest version. */
  currentVersion: number;
  /** Absent on entities saved before drafts existed: every save was published, so the newest. */
  publishedVersion?: number;
  createdAt: Date;
  updatedAt: Date;
}

/** One saved version, append-only: old versions stay readable, and can be published again (a rollback). */
type VersionDoc<P> = P & {
  version: number;
  savedBy?: SavedBy | null;
  createdAt: Date;
};

/** A version as read: the entity's head with the parts of one of its versions. */
export interface Versioned<P> {
  id: string;
  clientId: string;
  projectId: string;
  name: string;
  version: number;
  latestVersion: number;
  publishedVersion: number;
  parts: P;
  /** Null for versions saved before it was kept. */
  savedBy: SavedBy | null;
  /** When this version was saved. */
  createdAt: Date;
  /** When the entity last changed: saved, published or renamed; the catalog's revision. */
  updatedAt: Date;
}

export interface VersionSummary {
  version: number;
  createdAt: Date;
  savedBy: SavedBy | null;
  published: boolean;
}

export interface VersionedStoreOptions<P> {
  /** The model names and collections: the heads', the versions', and the versions' field naming their head. */
  heads: { model: string; collection: string };
  versions: { model: string; collection: string; ownerField: string };
  /** The version documents' own fields (the parts). */
  parts: SchemaDefinition;
  /** The parts as stored (defaults filled) from a version document. */
  partsOf(doc: Record<string, unknown>): P;
  /** The published version as the catalog topic carries it. */
  toCatalog(published: Versioned<P>): CatalogChange;
  /** The catalog's deletion marker of an entity. */
  deleted(id: string, clientId: string): CatalogChange;
  /** Told after each stored change the catalog must hear of. */
  changed(change: CatalogChange): Promise<void>;
}

export type PublishOutcome<P> = Versioned<P> | 'no-entity' | 'no-version';

const publishedOf = (head: HeadDoc): number => head.publishedVersion ?? head.currentVersion;

/**
 * The stores of the templates and the layouts: a head per entity (its name, newest and published
 * version) and its versions, each point-read by the head's id and number. A save appends a
 * version and, unless it is a draft, publishes it; publishing moves the head's pointer and
 * republishes the catalog entry, which always carries the published version's parts.
 */
export class VersionedStore<P> {
  private readonly Head;
  private readonly Version;
  private readonly owner: string;
  /** Saves and publishes of one entity one at a time, so versions number without gaps or clashes. */
  private readonly perEntity = new KeyedSerializer();

  constructor(
    connection: Connection,
    private readonly options: VersionedStoreOptions<P>,
  ) {
    const { heads, versions } = options;
    this.owner = versions.ownerField;
    const headSchema = new Schema<HeadDoc>(
      {
        clientId: String,
        projectId: String,
        name: String,
        currentVersion: Number,
        publishedVersion: Number,
        createdAt: Date,
        updatedAt: Date,
      },
      { collection: heads.collection, versionKey: false },
    );
    headSchema.index({ clientId: 1, projectId: 1, createdAt: 1 });
    const versionSchema = new Schema(
      {
        [versions.ownerField]: String,
        version: Number,
        ...options.parts,
        savedBy: { type: new Schema({ keyId: String, via: String }, { _id: false }), default: null },
        createdAt: Date,
      },
      { collection: versions.collection, versionKey: false },
    );
    versionSchema.index({ [versions.ownerField]: 1, version: 1 }, { unique: true });
    this.Head = connection.model<HeadDoc>(heads.model, headSchema);
    this.Version = connection.model(versions.model, versionSchema);
  }

  async init(): Promise<void> {
    await Promise.all([this.Head.init(), this.Version.init()]);
  }

  async catalogSnapshot(): Promise<CatalogChange[]> {
    const heads = await this.Head.find().lean<HeadDoc[]>().exec();
    const published = await Promise.all(heads.map((h) => this.read(h, publishedOf(h))));
    return published.flatMap((v) => (v ? [this.options.toCatalog(v)] : []));
  }

  /** A new entity whose version 1 is published. */
  async create(clientId: string, projectId: string, name: string, parts: P, savedBy: SavedBy): Promise<Versioned<P>> {
    const now = new Date();
    const head = (
      await this.Head.create({ clientId, projectId, name, currentVersion: 1, publishedVersion: 1, createdAt: now, updatedAt: now })
    ).toObject() as HeadDoc;
    const version = await this.append(String(head._id), 1, parts, savedBy, now);
    const created = this.toVersioned(head, version);
    await this.options.changed(this.options.toCatalog(created));
    return created;
  }

  /** Appends a version: published at once unless `draft`; null when the entity does not exist. */
  async save(
    clientId: string,
    projectId: string,
    id: string,
    name: string,
    parts: P,
    { draft, savedBy }: { draft: boolean; savedBy: SavedBy },
  ): Promise<Versioned<P> | null> {
    return this.perEntity.run(id, async () => {
      const head = await this.head(clientId, projectId, id);
      if (!head) return null;
      const now = new Date();
      const next = head.currentVersion + 1;
      const version = await this.append(id, next, parts, savedBy, now);
      const published = draft ? publishedOf(head) : next;
      const updated = await this.move(id, { name, currentVersion: next, publishedVersion: published, updatedAt: now });
      const saved = this.toVersioned(updated ?? head, version);
      // A draft changes no content the catalog carries, but the name may have changed.
      const live = draft ? await this.read(updated ?? head, published) : saved;
      if (live) await this.options.changed(this.options.toCatalog(live));
      return saved;
    });
  }

  /** Publishes version `version` (a draft going live, or an older one coming back). */
  async publish(clientId: string, projectId: string, id: string, version: number): Promise<PublishOutcome<P>> {
    return this.perEntity.run(id, async () => {
      const head = await this.head(clientId, projectId, id);
      if (!head) return 'no-entity';
      const found = await this.version(id, version);
      if (!found) return 'no-version';
      const updated = await this.move(id, { publishedVersion: version, updatedAt: new Date() });
      const live = this.toVersioned(updated ?? head, found);
      await this.options.changed(this.options.toCatalog(live));
      return live;
    });
  }

  /** The newest versions of the project's entities, oldest entity first. */
  async list(clientId: string, projectId: string): Promise<Array<Versioned<P>>> {
    const heads = await this.heads(clientId, projectId);
    const newest = await Promise.all(heads.map((h) => this.read(h, h.currentVersion)));
    return newest.flatMap((v) => (v ? [v] : []));
  }

  /** The published versions of the project's entities, oldest entity first. */
  async listPublished(clientId: string, projectId: string): Promise<Array<Versioned<P>>> {
    const heads = await this.heads(clientId, projectId);
    const published = await Promise.all(heads.map((h) => this.read(h, publishedOf(h))));
    return published.flatMap((v) => (v ? [v] : []));
  }

  /** The newest version, or the one asked for; null when the entity (or that version) does not exist. */
  async get(clientId: string, projectId: string, id: string, version?: number): Promise<Versioned<P> | null> {
    const head = await this.head(clientId, projectId, id);
    return head ? this.read(head, version ?? head.currentVersion) : null;
  }

  /** The published version; null when the entity does not exist. */
  async published(clientId: string, projectId: string, id: string): Promise<Versioned<P> | null> {
    const head = await this.head(clientId, projectId, id);
    return head ? this.read(head, publishedOf(head)) : null;
  }

  /** Who saved each version and when, newest first (at most `limit`); null when the entity does not exist. */
  async versions(clientId: string, projectId: string, id: string, limit: number): Promise<VersionSummary[] | null> {
    const head = await this.head(clientId, projectId, id);
    if (!head) return null;
    const saved = await this.Version.find({ [this.owner]: id }, { _id: 0, version: 1, createdAt: 1, savedBy: 1 })
      .sort({ version: -1 })
      .limit(limit)
      .lean<Array<{ version: number; createdAt: Date; savedBy?: SavedBy | null }>>()
      .exec();
    const published = publishedOf(head);
    return saved.map((v) => ({
      version: v.version,
      createdAt: v.createdAt,
      savedBy: v.savedBy ?? null,
      published: v.version === published,
    }));
  }

  async delete(clientId: string, projectId: string, id: string): Promise<boolean> {
    if (!(await this.head(clientId, projectId, id))) return false;
    await this.Head.deleteOne({ _id: id }).exec();
    await this.Version.deleteMany({ [this.owner]: id }).exec();
    await this.options.changed(this.options.deleted(id, clientId));
    return true;
  }

  private heads(clientId: string, projectId: string): Promise<HeadDoc[]> {
    return this.Head.find({ clientId, projectId }).sort({ createdAt: 1 }).lean<HeadDoc[]>().exec();
  }

  private async head(clientId: string, projectId: string, id: string): Promise<HeadDoc | null> {
    if (!Types.ObjectId.isValid(id)) return null;
    return this.Head.findOne({ _id: id, clientId, projectId }).lean<HeadDoc>().exec();
  }

  private move(id: string, set: Partial<HeadDoc>): Promise<HeadDoc | null> {
    return this.Head.findOneAndUpdate({ _id: id }, { $set: set }, { returnDocument: 'after' }).lean<HeadDoc>().exec();
  }

  private async append(id: string, version: number, parts: P, savedBy: SavedBy, createdAt: Date): Promise<VersionDoc<P>> {
    const doc = await this.Version.create({ [this.owner]: id, version, ...parts, savedBy, createdAt });
    return doc.toObject() as unknown as VersionDoc<P>;
  }

  private version(id: string, version: number): Promise<VersionDoc<P> | null> {
    return this.Version.findOne({ [this.owner]: id, version })
      .lean<VersionDoc<P>>()
      .exec();
  }

  private async read(head: HeadDoc, version: number): Promise<Versioned<P> | null> {
    const found = await this.version(String(head._id), version);
    return found ? this.toVersioned(head, found) : null;
  }

  private toVersioned(head: HeadDoc, version: VersionDoc<P>): Versioned<P> {
    return {
      id: String(head._id),
      clientId: head.clientId,
      projectId: head.projectId,
      name: head.name,
      version: version.version,
      latestVersion: head.currentVersion,
      publishedVersion: publishedOf(head),
      parts: this.options.partsOf(version),
      savedBy: version.savedBy?.keyId ? { keyId: version.savedBy.keyId, via: version.savedBy.via } : null,
      createdAt: version.createdAt,
      updatedAt: head.updatedAt,
    };
  }
}
