import { defineHandler } from '@postbus/bus';
import { Topics, type CatalogKind } from '@postbus/contracts';
import type { CatalogProjection } from '../model/catalog.repository';

type CatalogEntityType = 'catalog.project' | 'catalog.domain' | 'catalog.template' | 'catalog.email' | 'catalog.layout';

/** `catalog.project`, `catalog.domain`, `catalog.template`, `catalog.email`, `catalog.layout`: the catalog topic into this service's projection of it. */
export const catalogEntityHandler = <T extends CatalogEntityType>(catalog: CatalogProjection, type: T, kind: CatalogKind) =>
  defineHandler({
    topic: Topics.Catalog,
    type,
    handle: (data) => catalog.apply(kind, data.id, data.revision, data, false),
  });
