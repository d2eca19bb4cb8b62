import type { Connection } from 'mongoose';
import { deletion, type CatalogChange, type CatalogListener, type CatalogSource } from '../domain/ports/catalog';
import { VersionedStore, type PublishOutcome, type SavedBy, type Versioned, type VersionSummary } from './versioned.store';

/** What a layout version holds: the html (and text) around a template's body. */
export interface LayoutContent {
  html: string;
  text: string | null;
}

export type LayoutVersion = Versioned<LayoutContent>;

const toCatalog = (l: LayoutVersion): CatalogChange => ({
  type: 'catalog.layout',
  kind: 'layout',
  data: {
    id: l.id,
    clientId: l.clientId,
    revision: l.updatedAt.getTime(),
    projectId: l.projectId,
    version: l.version,
    html: l.parts.html,
    text: l.parts.text,
  },
});

/** Layouts of a client's projects: versioned and published as templates are. */
export class LayoutRepository implements CatalogSource {
  private readonly store: VersionedStore<LayoutContent>;

  constructor(connection: Connection, catalog: CatalogListener) {
    this.store = new VersionedStore<LayoutContent>(connection, {
      heads: { model: 'Layout', collection: 'layouts' },
      versions: { model: 'LayoutVersion', collection: 'layout_versions', ownerField: 'layoutId' },
      parts: { html: String, text: { type: String, default: null } },
      partsOf: (doc) => ({ html: doc['html'] as string, text: (doc['text'] as string | null | undefined) ?? null }),
      toCatalog,
      deleted: (id, clientId) => deletion('layout', id, clientId),
      changed: (change) => catalog.changed(change),
    });
  }

  init(): Promise<void> {
    return this.store.init();
  }

  catalogSnapshot(): Promise<CatalogChange[]> {
    return this.store.catalogSnapshot();
  }

  create(clientId: string, projectId: string, name: string, content: LayoutContent, savedBy: SavedBy): Promise<LayoutVersion> {
    return this.store.create(clientId, projectId, name, content, savedBy);
  }

  saveVersion(
    clientId: string,
    projectId: string,
    id: string,
    name: string,
    content: LayoutContent,
    save: { draft: boolean; savedBy: SavedBy },
  ): Promise<LayoutVersion | null> {
    return this.store.save(clientId, projectId, id, name, content, save);
  }

  publish(clientId: string, projectId: string, id: string, version: number): Promise<PublishOutcome<LayoutContent>> {
    return this.store.publish(clientId, projectId, id, version);
  }

  list(clientId: string, projectId: string): Promise<LayoutVersion[]> {
    return this.store.list(clientId, projectId);
  }

  /** The newest version, or the one asked for; null when the layout (or that version) does not exist. */
  get(clientId: string, projectId: string, id: string, version?: number): Promise<LayoutVersion | null> {
    return this.store.get(clientId, projectId, id, version);
  }

  /** The version templates are sent in. */
  published(clientId: string, projectId: string, id: string): Promise<LayoutVersion | null> {
    return this.store.published(clientId, projectId, id);
  }

  versions(clientId: string, projectId: string, id: string, limit: number): Promise<VersionSummary[] | null> {
    return this.store.versions(clientId, projectId, id, limit);
  }

  delete(clientId: string, projectId: string, id: string): Promise<boolean> {
    return this.store.delete(clientId, projectId, id);
  }
}
