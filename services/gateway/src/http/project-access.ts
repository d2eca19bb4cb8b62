import { NotFoundError } from '@postbus/errors';
import type { ProjectRepository } from '../model/project.repository';

/**
 * Whether a project belongs to a client, cached briefly for the data-plane hot path. A changed or
 * deleted project is forgotten at once on this instance, within the TTL on the others.
 */
export class ProjectAccess {
  private readonly owned = new Map<string, number>();

  constructor(
    private readonly projects: ProjectRepository,
    private readonly ttlMs: number,
  ) {}

  readonly assert = async (clientId: string, projectId: string): Promise<void> => {
    if (!(await this.owns(clientId, projectId))) throw new NotFoundError('No such project for this client.');
  };

  readonly owns = async (clientId: string, projectId: string): Promise<boolean> => {
    const cacheKey = `${clientId}:${projectId}`;
    const expires = this.owned.get(cacheKey);
    if (expires !== undefined && expires > Date.now()) return true;
    if (!(await this.projects.get(clientId, projectId))) return false;
    if (this.owned.size > 10_000) this.owned.clear();
    this.owned.set(cacheKey, Date.now() + this.ttlMs);
    return true;
  };

  readonly forget = (projectId: string): void => {
    for (const key of this.owned.keys()) if (key.endsWith(`:${projectId}`)) this.owned.delete(key);
  };
}
