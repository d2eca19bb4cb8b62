import type { UserProfile } from '@postbus/contracts';
import { ServiceUnavailableError } from '@postbus/errors';

/** Reads profiles from the users service's internal API (the owner of that data). */
export class UsersClient {
  constructor(
    private readonly baseUrl: string,
    private readonly timeoutMs = 5000,
  ) {}

  byEmail(projectId: string, email: string): Promise<UserProfile | null> {
    return this.get(`/internal/projects/${encodeURIComponent(projectId)}/users?email=${encodeURIComponent(email)}`);
  }

  byUserId(projectId: string, userId: string): Promise<UserProfile | null> {
    return this.get(`/internal/projects/${encodeURIComponent(projectId)}/users/${encodeURIComponent(userId)}`);
  }

  private async get(path: string): Promise<UserProfile | null> {
    let response: Response;
    try {
      response = await fetch(`${this.baseUrl}${path}`, { signal: AbortSignal.timeout(this.timeoutMs) });
    } catch {
      throw new ServiceUnavailableError('The users service did not answer; retry later.', 2);
    }
    if (response.status === 404) return null;
    if (!response.ok) throw new ServiceUnavailableError('The users service could not answer; retry later.', 2);
    return (await response.json()) as UserProfile;
  }
}
