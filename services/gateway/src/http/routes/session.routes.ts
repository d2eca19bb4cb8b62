import { Session } from '@postbus/contracts';
import type { Sessions } from '../../domain/sessions';
import { defineRoute, type RouteSpec } from '../route';

/** Exchanges API-key credentials for a short-lived admin session (the admin panel's login). */
export function sessionRoutes(sessions: Sessions): RouteSpec[] {
  return [
    defineRoute({
      method: 'post',
      path: '/v1/auth/session',
      operationId: 'createSession',
      summary: 'Open an admin session',
      tag: 'Authentication',
      scope: 'full',
      keyOnly: true,
      answerHoldsSecret: true,
      responses: {
        201: { description: 'A Bearer token for management and read routes; it carries the scope of the key', schema: Session },
      },
      handle: async ({ client }) => {
        const { token, expiresAt } = await sessions.issue(client);
        return {
          status: 201,
          body: { token, token_type: 'Bearer', expires_at: expiresAt.toISOString(), scope: client.scope } satisfies Session,
        };
      },
    }),
  ];
}
