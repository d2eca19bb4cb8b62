import type { CatalogKind, MessageData, Project, TransactionalEmail } from '@postbus/contracts';

/** One catalog change as published: the entity's whole state, or its deletion marker. */
export type CatalogChange =
  | { type: 'catalog.project'; kind: 'project'; data: MessageData<'catalog.project'> }
  | { type: 'catalog.domain'; kind: 'domain'; data: MessageData<'catalog.domain'> }
  | { type: 'catalog.template'; kind: 'template'; data: MessageData<'catalog.template'> }
  | { type: 'catalog.email'; kind: 'email'; data: MessageData<'catalog.email'> }
  | { type: 'catalog.layout'; kind: 'layout'; data: MessageData<'catalog.layout'> }
  | { type: 'catalog.deleted'; kind: CatalogKind; data: MessageData<'catalog.deleted'> };

/** What a catalog store tells after each stored change. */
export interface CatalogListener {
  changed(change: CatalogChange): Promise<void>;
}

export const deletion = (kind: CatalogKind, id: string, clientId: string): CatalogChange => ({
  type: 'catalog.deleted',
  kind,
  data: { kind, id, clientId, revision: Date.now() },
});

/** A store whose whole catalog state can be republished. */
export interface CatalogSource {
  catalogSnapshot(): Promise<CatalogChange[]>;
}

/** The projects, as a trigger reads them: a project of the client, or null. */
export interface ProjectLookup {
  get(clientId: string, projectId: string): Promise<Project | null>;
}

/** The transactional emails, as a trigger reads them: by id or key, within the client's project. */
export interface EmailLookup {
  get(clientId: string, projectId: string, idOrKey: string): Promise<TransactionalEmail | null>;
}

/** The templates, as a trigger reads them: the published version of a template of the client's project, and when the template last changed. */
export interface TemplateLookup {
  published(clientId: string, projectId: string, id: string): Promise<{ id: string; version: number; updatedAt: Date } | null>;
}
