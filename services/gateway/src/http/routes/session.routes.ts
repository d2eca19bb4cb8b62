import { AdminSession, CookieSession, Session, WhoAmI } from '@postbus/contracts';
import { ForbiddenError } from '@postbus/errors';
import type { Sessions } from '../../domain/sessions';
import type { AuthenticatedClient } from '../auth';
import { defineRoute, type RouteSpec } from '../route';
import { clearedSessionCookie, sessionCookie } from '../session-cookie';

/** A session's scope: these routes are refused to test keys (route.ts) before this is asked. */
const sessionScopeOf = (client: AuthenticatedClient): Session['scope'] => {
  if (client.scope === 'test') throw new ForbiddenError('A test key (scope "test") opens no admin session.');
  return client.scope;
};

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
          body: { token, token_type: 'Bearer', expires_at: expiresAt.toISOString(), scope: sessionScopeOf(client) } satisfies Session,
        };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/v1/auth/session/cookie',
      operationId: 'createCookieSession',
      summary:
        "Open an admin session held in a cookie (the admin panel's sign-in): an HttpOnly, SameSite=Strict postbus_session cookie (over https: Secure, and named __Host-postbus_session); it counts only on requests from this origin (Sec-Fetch-Site or Origin), so another site cannot act with it",
      tag: 'Authentication',
      scope: 'full',
      keyOnly: true,
      answerHoldsSecret: true,
      responses: {
        201: { description: 'The session is in the Set-Cookie header; the body says until when', schema: CookieSession },
      },
      handle: async ({ client, secure }) => {
        const { token, expiresAt } = await sessions.issue(client);
        const maxAge = Math.max(0, Math.floor((expiresAt.getTime() - Date.now()) / 1000));
        return {
          status: 201,
          headers: { 'Set-Cookie': sessionCookie(token, maxAge, secure), 'Cache-Control': 'no-store' },
          body: { token_type: 'Cookie', expires_at: expiresAt.toISOString(), scope: sessionScopeOf(client) } satisfies CookieSession,
        };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/v1/auth/session',
      operationId: 'getSession',
      summary: 'Who the credentials are: the client, the scope, and whether an API key or an admin session was used',
      tag: 'Authentication',
      scope: 'full',
      responses: { 200: { description: 'The caller', schema: AdminSession } },
      handle: ({ client }) =>
        Promise.resolve({
          status: 200,
          body: { client_id: client.clientId, scope: sessionScopeOf(client), via: client.via } satisfies AdminSession,
        }),
    }),
    defineRoute({
      method: 'get',
      path: '/v1/auth/whoami',
      operationId: 'whoAmI',
      summary:
        'What the API key is: its client, its id and scope, and the project its credentials named (Basic <project id>:<key>, as the SMTP submission login gives them)',
      tag: 'Authentication',
      scope: 'sdk',
      testKeysMayCall: true,
      keyOnly: true,
      projectCredentialsMayCall: true,
      responses: { 200: { description: 'The key', schema: WhoAmI } },
      handle: ({ client }) =>
        Promise.resolve({
          status: 200,
          body: {
            client_id: client.clientId,
            key_id: client.keyId,
            scope: client.scope,
            project_id: client.project ?? null,
          } satisfies WhoAmI,
        }),
    }),
    defineRoute({
      method: 'delete',
      path: '/v1/auth/session',
      operationId: 'deleteSession',
      summary:
        'Sign out: clears the session cookie. (A session token is signed, not stored: a Bearer token copied elsewhere stays valid until it expires or its key is revoked.)',
      tag: 'Authentication',
      scope: 'full',
      responses: { 204: { description: 'The cookie is cleared' } },
      handle: ({ secure }) => Promise.resolve({ status: 204, headers: { 'Set-Cookie': clearedSessionCookie(secure) } }),
    }),
  ];
}
