import type { Erasure, ErasureList, ErasureStatus, OpenErasure, UserRef } from '@postbus/contracts';
import { NotFoundError } from '@postbus/errors';
import type { InternalTokens } from '@postbus/http';
import type { ErasureQueue } from '../domain/ports/erasure';
import { InternalApiClient, projectPath } from './internal-api-client';

/** The erasure queue, owned by the erasure service, through its internal API. */
export class ErasureClient extends InternalApiClient implements ErasureQueue {
  constructor(baseUrl: string, tokens: InternalTokens, timeoutMs?: number) {
    super('erasure', 'erasure', baseUrl, tokens, timeoutMs);
  }

  async open(projectId: string, user: UserRef): Promise<OpenErasure> {
    const open = await this.get<OpenErasure>(`${projectPath(projectId)}/erasures/open`, { email: user.email, user_id: user.userId });
    if (!open) throw new NotFoundError('No such project for this client.');
    return open;
  }

  async list(projectIds: string[], query: { status?: ErasureStatus; limit?: number; cursor?: string }): Promise<ErasureList> {
    if (projectIds.length === 0) return { data: [], next_cursor: null };
    const list = await this.get<ErasureList>('/internal/erasures', { ...query, project_ids: projectIds.join(',') });
    return list ?? { data: [], next_cursor: null };
  }

  async erasure(projectIds: string[], erasureId: string): Promise<Erasure | null> {
    if (projectIds.length === 0) return null;
    return this.get<Erasure>(`/internal/erasures/${encodeURIComponent(erasureId)}`, { project_ids: projectIds.join(',') });
  }
}
