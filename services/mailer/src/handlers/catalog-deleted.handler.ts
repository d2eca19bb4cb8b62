import { defineHandler } from '@postbus/bus';
import { Topics } from '@postbus/contracts';
import type { CatalogProjection } from '../model/catalog.repository';

/** `catalog.deleted`: the entity leaves the projection (a tombstone, so a late revision cannot bring it back). */
export const catalogDeletedHandler = (catalog: CatalogProjection) =>
  defineHandler({
    topic: Topics.Catalog,
    type: 'catalog.deleted',
    handle: (data) => catalog.apply(data.kind, data.id, data.revision, null, true),
  });
