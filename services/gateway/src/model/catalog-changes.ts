import type { CatalogChange, CatalogListener } from '../domain/ports/catalog';

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
