import { defineHandler } from '@postbus/bus';
import { Topics } from '@postbus/contracts';
import type { ProjectOwners } from '../model/project.repository';

/** `catalog.deleted`: a deleted project stays known as deleted, so its late events are skipped at once; other kinds concern no webhook. */
export const catalogDeletedHandler = (projects: ProjectOwners) =>
  defineHandler({
    topic: Topics.Catalog,
    type: 'catalog.deleted',
    handle: (data) => (data.kind === 'project' ? projects.remove(data.id) : Promise.resolve()),
  });
