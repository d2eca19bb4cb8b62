import type { UserProfile } from '@postbus/contracts';
import { ServiceUnavailableError, ValidationError, type FieldError } from '@postbus/errors';

export type QueryValues = Record<string, string | number | boolean | undefined>;

/**
 * A GET client for another service's internal read API (the owner of that data). The gateway has
 * already authenticated the client and checked the project; the service answers JSON, 404 for
 * nothing there, 400 (problem+json) for a query it refuses. An unreachable or failing service is a
 * 503 with Retry-After for the caller, never a 500.
 */
export abstract class InternalApiClient {
  private readonly baseUrl: string;

  protected constructor(
    /** Named in the 503 detail, e.g. "users". */
    private readonly service: string,
    baseUrl: string,
    private readonly timeoutMs = 5000,
  ) {
    this.baseUrl = baseUrl.replace(/\/+$/, '');
  }

  /** The JSON answer, or null when the service answers 404. */
  protected async get<T>(path: string, query: QueryValues = {}): Promise<T | null> {
    const search = new URLSearchParams();
    for (const [name, value] of Object.entries(query)) if (value !== undefined) search.set(name, String(value));
    const qs = search.toString();
    let response: Response;
    try {
      response = await fetch(`${this.baseUrl}${path}${qs ? `?${qs}` : ''}`, { signal: AbortSignal.timeout(this.timeoutMs) });
    } catch {
      throw new ServiceUnavailableError(`The ${this.service} service did not answer; retry later.`, 2);
    }
    if (response.status === 404) {
      await response.body?.cancel();
      return null;
    }
    if (response.status === 400) throw await refused(response);
    if (!response.ok) {
      await response.body?.cancel();
      throw new ServiceUnavailableError(`The ${this.service} service could not answer; retry later.`, 2);
    }
    try {
      return (await response.json()) as T;
    } catch {
      throw new ServiceUnavailableError(`The ${this.service} service could not answer; retry later.`, 2);
    }
  }
}

/** A 400 of the internal API (its problem details are written for clients) as the gateway's 400. */
async function refused(response: Response): Promise<ValidationError> {
  let problem: { detail?: unknown; errors?: unknown } = {};
  try {
    problem = (await response.json()) as typeof problem;
  } catch {
    // not a problem body: the generic detail below
  }
  const isFieldError = (e: unknown): e is FieldError =>
    typeof e === 'object' && e !== null && typeof (e as FieldError).pointer === 'string' && typeof (e as FieldError).message === 'string';
  const errors = Array.isArray(problem.errors) ? (problem.errors as unknown[]).filter(isFieldError) : undefined;
  return new ValidationError(typeof problem.detail === 'string' ? problem.detail : 'The query is invalid.', errors);
}

export const projectPath = (projectId: string): string => `/internal/projects/${encodeURIComponent(projectId)}`;

/** Reads profiles from the users service's internal API. */
export class UsersClient extends InternalApiClient {
  constructor(baseUrl: string, timeoutMs?: number) {
    super('users', baseUrl, timeoutMs);
  }

  byEmail(projectId: string, email: string): Promise<UserProfile | null> {
    return this.get(`${projectPath(projectId)}/users`, { email });
  }

  byUserId(projectId: string, userId: string): Promise<UserProfile | null> {
    return this.get(`${projectPath(projectId)}/users/${encodeURIComponent(userId)}`);
  }
}
