import { defineHandler } from '@postbus/bus';
import { Topics } from '@postbus/contracts';
import type { ProjectOwners } from '../model/project.repository';

/** `catalog.project`: the projection learns the project's owner, whose endpoints its events go to. */
export const catalogProjectHandler = (projects: ProjectOwners) =>
  defineHandler({ topic: Topics.Catalog, type: 'catalog.project', handle: (data) => projects.set(data.id, data.clientId) });
