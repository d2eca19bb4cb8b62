import SwaggerParser from '@apidevtools/swagger-parser';
import type { Request, Response } from 'express';
import type { OpenAPI } from 'openapi-types';
import type { IdempotencyRepository } from '../model/idempotency.repository';
import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import {
  MESSAGE_WEBHOOK_EVENTS,
  messageWebhook,
  serialiseWebhookBody,
  userErasedWebhook,
  userErasureScheduledWebhook,
  userUnsubscribedWebhook,
  userUpdateRejectedWebhook,
  WebhookBodySchemas,
  webhookTestBody,
  type WebhookBody,
  type WebhookBodyType,
} from '@postbus/contracts';
import { apiDocument, apiRouteTable } from './api-routes';
import { webhookSchemaName } from './openapi';
import { apiRouter } from './route';

const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;

function documentedOperations(document: Record<string, unknown>): string[] {
  const paths = document['paths'] as Record<string, Record<string, unknown>>;
  return Object.entries(paths).flatMap(([path, item]) =>
    METHODS.filter((method) => item[method] !== undefined).map((method) => `${method.toUpperCase()} ${path}`),
  );
}

describe('the OpenAPI document (/v1/openapi.json)', () => {
  const document = apiDocument();

  it('opens to test keys the sends and the message reads alone, and says so on each', () => {
    const open = apiRouteTable().filter((route) => route.testKeysMayCall);
    expect(open.map((route) => route.operationId).sort()).toEqual([
      'getMessage',
      'getMessageAttachment',
      'getMessageContent',
      'listMessages',
      'sendContentEmail',
      'sendEmail',
      'sendEmailBatch',
      'whoAmI',
    ]);
    const paths = document['paths'] as Record<string, Record<string, { operationId: string; description?: string; responses: object }>>;
    for (const item of Object.values(paths))
      for (const op of Object.values(item)) {
        const isOpen = open.some((route) => route.operationId === op.operationId);
        expect([op.operationId, /test key/.test(op.description ?? '')]).toEqual([op.operationId, isOpen]);
        // Every other route answers a test key 403; the sends (and who-am-I) answer no key 403.
        const sends = ['sendEmail', 'sendContentEmail', 'sendEmailBatch', 'whoAmI'].includes(op.operationId);
        expect([op.operationId, '403' in op.responses]).toEqual([op.operationId, !sends]);
      }
  });

  it('is valid OpenAPI 3.1 by a standard validator (@apidevtools/swagger-parser)', async () => {
    // The validator dereferences in place: give it a copy.
    const validated = await SwaggerParser.validate(structuredClone(document) as unknown as OpenAPI.Document);
    expect((validated as { openapi: string }).openapi).toBe('3.1.0');
  });

  it('a broken document is refused by the same validator (the check can fail)', async () => {
    const broken = structuredClone(document) as { paths: Record<string, Record<string, { parameters: unknown[] }>> };
    broken.paths['/v1/projects']!['get']!.parameters.push({ name: 'limit', in: 'body', schema: { type: 'integer' } });
    await expect(SwaggerParser.validate(broken as unknown as OpenAPI.Document)).rejects.toThrow();
  });

  it('every documented operation is answered by its own route, and the router answers nothing else', async () => {
    // Registering touches no dependency: the idempotency store is only used while answering.
    const router = apiRouter(
      apiRouteTable(),
      { assertProject: () => Promise.resolve(), idempotency: {} as IdempotencyRepository, idempotencyRetentionMs: 0 },
      '/v1',
    );
    /** The operation (`POST /v1/projects/{projectId}/users`) the router picks for a request, or null when it passes it on. */
    const answering = async (method: string, url: string): Promise<string | null> => {
      const req = { method, url } as Request;
      let passedOn = false;
      // Without a client every route refuses at once (401): only which route took the request matters here.
      await Promise.resolve(router(req, {} as Response, () => (passedOn = true))).catch(() => undefined);
      const path = (req.route as { path: string } | undefined)?.path;
      return passedOn || !path ? null : `${method} /v1${path.replace(/:(\w+)/g, '{$1}')}`;
    };
    const documented = documentedOperations(document);
    expect(documented.length).toBeGreaterThan(50);
    for (const operation of documented) {
      const [method, path] = operation.split(' ') as [string, string];
      const url = path.slice('/v1'.length).replace(/\{(\w+)\}/g, 'Sample_$1');
      expect(await answering(method, url)).toBe(operation);
      // As express matched them: any letter case, a trailing slash, a query.
      expect(await answering(method, `${url.toUpperCase()}/?limit=1`)).toBe(operation);
    }
    // A fixed segment before a parameter, whatever the order of the table.
    expect(await answering('PATCH', '/projects/p1/users/by-email')).toBe('PATCH /v1/projects/{projectId}/users/by-email');
    expect(await answering('PATCH', '/projects/p1/users/u1')).toBe('PATCH /v1/projects/{projectId}/users/{userId}');
    expect(await answering('POST', '/projects/p1/templates/validate')).toBe('POST /v1/projects/{projectId}/templates/validate');
    // Its other methods are no template's, whose id "validate" cannot be: passed on, to be a 405.
    expect(await answering('GET', '/projects/p1/templates/validate')).toBeNull();
    expect(await answering('PUT', '/projects/p1/templates/validate/')).toBeNull();
    expect(await answering('GET', '/projects/p1/templates/64b7f0c2a1e4d5f6a7b8c9d0')).toBe(
      'GET /v1/projects/{projectId}/templates/{templateId}',
    );
    expect(await answering('HEAD', '/projects')).toBe('HEAD /v1/projects'); // by the GET's route
    expect(await answering('PUT', '/projects')).toBeNull();
    expect(await answering('GET', '/no-such-path')).toBeNull();
    expect(await answering('GET', '/projects/p1/users/u1/extra')).toBeNull();
  });

  it('holds only /v1 paths (the routes outside the API are listed in test/openapi-document.test.ts)', () => {
    expect(documentedOperations(document).filter((operation) => !operation.split(' ')[1]!.startsWith('/v1/'))).toEqual([]);
  });

  it('names each operation once', () => {
    const paths = document['paths'] as Record<string, Record<string, { operationId: string }>>;
    const ids = Object.values(paths).flatMap((item) => METHODS.filter((m) => item[m]).map((m) => item[m]!.operationId));
    expect(new Set(ids).size).toBe(ids.length);
  });
});

describe('the OpenAPI document’s webhooks', () => {
  const document = apiDocument() as {
    webhooks: Record<string, { post: { requestBody: { content: Record<string, { schema: { $ref: string } }> } } }>;
  };

  it('lists every webhook body of libs/contracts, each by a schema of the document', () => {
    expect(Object.keys(document.webhooks).sort()).toEqual(Object.keys(WebhookBodySchemas).sort());
    const schemas = (document as unknown as { components: { schemas: Record<string, unknown> } }).components.schemas;
    for (const [type, item] of Object.entries(document.webhooks)) {
      const ref = item.post.requestBody.content['application/json']!.schema.$ref;
      expect(ref).toBe(`#/components/schemas/${webhookSchemaName(type as keyof typeof WebhookBodySchemas)}`);
      expect(schemas[ref.split('/').pop()!]).toMatchObject({ properties: { type: { const: type } } });
    }
  });

  const ajv = addFormats(new Ajv({ allErrors: true, strict: false }));
  const schemaOf = (type: WebhookBodyType) =>
    (document as unknown as { components: { schemas: Record<string, object> } }).components.schemas[webhookSchemaName(type)]!;
  const valid = (body: WebhookBody): boolean => {
    const validate = ajv.compile(schemaOf(body.type));
    const ok = validate(JSON.parse(serialiseWebhookBody(body)));
    if (!ok) throw new Error(`${body.type}: ${ajv.errorsText(validate.errors)}`);
    return ok;
  };
  const at = '2026-01-02T03:04:05.000Z';

  it('as the builders make them, match the schemas the document publishes', () => {
    for (const event of MESSAGE_WEBHOOK_EVENTS) {
      const base = {
        messageId: 'msg_1',
        projectId: 'p1',
        emailKey: 'welcome',
        email: 'a@example.com',
        userId: null,
        event,
        sequence: 2,
        at,
      };
      expect(valid(messageWebhook(`message.${event}`, base))).toBe(true);
      const full = { ...base, userId: 'u1', smtp: { code: 250, response: 'ok' }, reason: 'why', url: 'https://x.example', attempt: 1 };
      expect(valid(messageWebhook(`message.${event}`, full))).toBe(true);
    }
    expect(
      valid(userUnsubscribedWebhook({ projectId: 'p1', id: 'x', userId: null, email: 'a@example.com', reason: null, unsubscribedAt: at })),
    ).toBe(true);
    expect(
      valid(
        userUpdateRejectedWebhook(
          { projectId: 'p1', user: { userId: 'u1' }, command: 'user.update', commandId: 'c1', reason: 'user_not_found' },
          at,
        ),
      ),
    ).toBe(true);
    const subject = { erasureId: 'era_1', projectId: 'p1', id: null, email: 'a@example.com', userId: null };
    expect(valid(userErasureScheduledWebhook({ ...subject, requestedAt: at, eraseAt: at }))).toBe(true);
    expect(valid(userErasedWebhook({ erasureId: 'era_1', projectId: 'p1', requestedAt: at, eraseAt: at, completedAt: at }))).toBe(true);
    expect(valid(webhookTestBody('we_1', new Date(at)))).toBe(true);
  });

  it('refuse a body whose event does not match its type (the schemas can fail)', () => {
    const validate = ajv.compile(schemaOf('message.sent'));
    expect(validate({ type: 'message.opened', timestamp: at, data: {} })).toBe(false);
  });

  it('a broken webhooks section is refused by the validator (the check covers it)', async () => {
    const broken = structuredClone(document);
    broken.webhooks['message.sent']!.post.requestBody.content['application/json']!.schema.$ref = '#/components/schemas/NoSuchEvent';
    await expect(SwaggerParser.validate(broken as unknown as OpenAPI.Document)).rejects.toThrow();
  });
});
