import type { UserProfile } from '@postbus/contracts';
import type { InternalTokens } from '@postbus/http';
import type { Logger } from '@postbus/logger';
import type { ProfileLanguages } from '../domain/ports/delivery';

/**
 * How long a message waits for a profile's language: the read is one indexed lookup, and a
 * message whose users service is slow is sent in its template's default rather than held.
 */
export const PROFILE_READ_TIMEOUT_MS = 2_000;

/**
 * Stored profiles' languages, from the users service's internal API (the gateway's read of a
 * user). Anything but an answer in time (no such user yet, a failure, a timeout) is no language:
 * the message goes in its template's default. Warnings name the project and what went wrong,
 * never the user.
 */
export class UsersClient implements ProfileLanguages {
  private readonly baseUrl: string;

  constructor(
    baseUrl: string,
    private readonly tokens: InternalTokens,
    private readonly logger: Logger,
    private readonly timeoutMs = PROFILE_READ_TIMEOUT_MS,
  ) {
    this.baseUrl = baseUrl.replace(/\/+$/, '');
  }

  async languageOf(projectId: string, user: { userId: string | null; email: string }): Promise<string | null> {
    const users = `${this.baseUrl}/internal/projects/${encodeURIComponent(projectId)}/users`;
    const url =
      user.userId !== null
        ? `${users}/${encodeURIComponent(user.userId)}`
        : `${users}?${new URLSearchParams({ email: user.email }).toString()}`;
    try {
      const response = await fetch(url, {
        headers: { authorization: await this.tokens.authorization('users') },
        signal: AbortSignal.timeout(this.timeoutMs),
      });
      // No profile (the user's first send may be registering them right now): nothing to go by.
      if (response.status === 404) {
        await response.body?.cancel();
        return null;
      }
      if (!response.ok) {
        await response.body?.cancel();
        this.logger.warn('the users service did not give a profile language: the default variant goes', {
          projectId,
          status: response.status,
        });
        return null;
      }
      const { language } = (await response.json()) as Partial<UserProfile>;
      return typeof language === 'string' && language !== '' ? language : null;
    } catch (error) {
      this.logger.warn('the users service did not give a profile language: the default variant goes', {
        projectId,
        reason: reasonOf(error, this.timeoutMs),
      });
      return null;
    }
  }
}

/** Why a read failed, in words that carry nothing of the answer (a parse error would quote the profile). */
function reasonOf(error: unknown, timeoutMs: number): string {
  const { name, cause } = error as Error & { cause?: { code?: unknown; message?: unknown } };
  if (name === 'TimeoutError') return `no answer within ${timeoutMs} ms`;
  if (name === 'SyntaxError') return 'not a JSON answer';
  // fetch's own failure says why in its cause: ECONNREFUSED, ENOTFOUND, …
  if (typeof cause?.code === 'string') return cause.code;
  return typeof cause?.message === 'string' ? cause.message : name;
}
