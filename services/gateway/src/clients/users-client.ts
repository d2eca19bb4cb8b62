import type { UserProfile } from '@postbus/contracts';
import type { InternalTokens } from '@postbus/http';
import { InternalApiClient, projectPath } from './internal-api-client';

/** Reads profiles from the users service's internal API. */
export class UsersClient extends InternalApiClient {
  constructor(baseUrl: string, tokens: InternalTokens, timeoutMs?: number) {
    super('users', 'users', baseUrl, tokens, timeoutMs);
  }

  byEmail(projectId: string, email: string): Promise<UserProfile | null> {
    return this.get(`${projectPath(projectId)}/users`, { email });
  }

  byUserId(projectId: string, userId: string): Promise<UserProfile | null> {
    return this.get(`${projectPath(projectId)}/users/${encodeURIComponent(userId)}`);
  }
}
