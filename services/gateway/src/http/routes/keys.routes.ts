import { ApiKey, ApiKeyList, ApiKeyParams, CreateApiKeyRequest, CreatedApiKey } from '@postbus/contracts';
import { NotFoundError, UnprocessableError } from '@postbus/errors';
import { publicKey, type KeyAdmin } from '../../domain/key-admin';
import { defineRoute, type RouteSpec } from '../route';

const TAG = 'API keys';

/** The client's own API keys (scope full): create (the secret is shown once), list, revoke. */
export function keyRoutes(admin: KeyAdmin, ownsProject: (clientId: string, projectId: string) => Promise<boolean>): RouteSpec[] {
  return [
    defineRoute({
      method: 'post',
      path: '/v1/keys',
      operationId: 'createApiKey',
      summary:
        'Create an API key; its secret is shown only in this answer. With project_id it is bound to that project: it acts on it only, and is sent alone (Bearer, X-Postmark-Server-Token, or as an SMTP password)',
      tag: TAG,
      scope: 'full',
      // A session must not mint lasting credentials: it would outlive the key that opened it.
      keyOnly: true,
      answerHoldsSecret: true,
      body: CreateApiKeyRequest,
      responses: { 201: { description: 'The key with its secret (api_key); only a digest is stored', schema: CreatedApiKey } },
      handle: async ({ body, client }) => {
        if (body.project_id !== undefined && !(await ownsProject(client.clientId, body.project_id))) {
          throw new UnprocessableError('project-missing', 'project_id names no project of this client.', [
            { pointer: '/project_id', message: 'no project of this client has this id' },
          ]);
        }
        const { key, apiKey } = await admin.create(client.clientId, body.name, body.scope, body.project_id ?? null);
        return { status: 201, body: { ...publicKey(key), api_key: apiKey } satisfies CreatedApiKey };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/v1/keys',
      operationId: 'listApiKeys',
      summary: "List the client's API keys (revoked ones included), oldest first",
      tag: TAG,
      scope: 'full',
      responses: { 200: { description: 'The keys, without their secrets', schema: ApiKeyList } },
      handle: async ({ client }) => ({ status: 200, body: { data: (await admin.list(client.clientId)).map(publicKey) } }),
    }),
    defineRoute({
      method: 'delete',
      path: '/v1/keys/:keyId',
      tenant: { keptBy: 'gateway', param: 'keyId' },
      operationId: 'revokeApiKey',
      summary: 'Revoke an API key: every gateway refuses it, and the sessions it opened, within a second',
      tag: TAG,
      scope: 'full',
      params: ApiKeyParams,
      responses: {
        200: { description: 'The revoked key', schema: ApiKey },
        409: { description: 'It is the last valid key with scope "full": create another one first' },
      },
      handle: async ({ params, client }) => {
        const revoked = await admin.revoke(client.clientId, params.keyId);
        if (!revoked) throw new NotFoundError('No such key for this client.');
        return { status: 200, body: publicKey(revoked) };
      },
    }),
  ];
}
