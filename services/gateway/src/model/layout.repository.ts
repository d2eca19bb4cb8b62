import type { Connection } from 'mongoose';
import { deletion, type CatalogChange, type CatalogListener, type CatalogSource } from '../domain/ports/catalog';
import { VersionedStore, type Versioned } from './versioned.store';

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
export class LayoutRepository extends VersionedStore<LayoutContent> implements CatalogSource {
  constructor(connection: Connection, catalog: CatalogListener) {
    super(connection, {
      heads: { model: 'Layout', collection: 'layouts' },
      versions: { model: 'LayoutVersion', collection: 'layout_versions', ownerField: 'layoutId' },
      parts: { html: String, text: { type: String, default: null } },
      partsOf: (doc) => ({ html: doc['html'] as string, text: (doc['text'] as string | null | undefined) ?? null }),
      toCatalog,
      deleted: (id, clientId) => deletion('layout', id, clientId),
      changed: (change) => catalog.changed(change),
    });
  }
}
