import { type CatalogKind, type MessageData } from '@postbus/contracts';

/** One catalog change as published: the entity's whole state, or its deletion marker. */
export type CatalogChange =
  | { type: 'catalog.project'; kind: 'project'; data: MessageData<'catalog.project'> }
  | { type: 'catalog.domain'; kind: 'domain'; data: MessageData<'catalog.domain'> }
  | { type: 'catalog.template'; kind: 'template'; data: MessageData<'catalog.template'> }
  | { type: 'catalog.email'; kind: 'email'; data: MessageData<'catalog.email'> }
  | { type: 'catalog.deleted'; kind: CatalogKind; data: MessageData<'catalog.deleted'> };

/** What a repository tells after each stored change. */
export interface CatalogListener {
  changed(change: CatalogChange): Promise<void>;
}

export const deletion = (kind: CatalogKind, id: string, clientId: string): CatalogChange => ({
  type: 'catalog.deleted',
  kind,
  data: { kind, id, clientId, revision: Date.now() },
});

/** A repository whose whole catalog state can be republished. */
export interface CatalogSource {
  catalogSnapshot(): Promise<CatalogChange[]>;
}

/**
 * Where the catalog repositories report their stored changes, passed on to each listener in the
 * order they began listening. The repositories know only this, not who listens (the trigger
 * catalog's cache, the feed that publishes to the bus), so they can be built first and the
 * listeners, which read from them, after.
 */
export class CatalogChanges implements CatalogListener {
  private readonly listeners: Array<(change: CatalogChange) => void | Promise<void>> = [];

  listen(listener: (change: CatalogChange) => void | Promise<void>): void {
    this.listeners.push(listener);
  }

  async changed(change: CatalogChange): Promise<void> {
    for (const listener of this.listeners) await listener(change);
  }
}
