import SwaggerParser from '@apidevtools/swagger-parser';
import express from 'express';
import type { OpenAPI } from 'openapi-types';
import type { IdempotencyRepository } from '../model/idempotency.repository';
import { apiDocument, apiRouteTable } from './api-routes';
import { mountRoutes } from './route';

const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;

/** Method and OpenAPI path of every route express holds on a router (`:param` becomes `{param}`). */
function registeredRoutes(router: express.Router, mountPath: string): string[] {
  const out: string[] = [];
  for (const layer of router.stack) {
    const route = layer.route as { path: string; methods: Record<string, boolean> } | undefined;
    if (!route) continue;
    for (const method of Object.keys(route.methods).filter((m) => route.methods[m])) {
      out.push(`${method.toUpperCase()} ${mountPath}${route.path.replace(/:(\w+)/g, '{$1}')}`);
    }
  }
  return out;
}

function documentedOperations(document: Record<string, unknown>): string[] {
  const paths = document['paths'] as Record<string, Record<string, unknown>>;
  return Object.entries(paths).flatMap(([path, item]) =>
    METHODS.filter((method) => item[method] !== undefined).map((method) => `${method.toUpperCase()} ${path}`),
  );
}

describe('the OpenAPI document (/v1/openapi.json)', () => {
  const document = apiDocument();

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

  it('lists every public /v1 route the gateway registers with express, and no other', () => {
    const v1 = express.Router();
    // Registering touches no dependency: the idempotency store is only used while answering.
    mountRoutes(v1, apiRouteTable(), { idempotency: {} as IdempotencyRepository, idempotencyRetentionMs: 0 }, '/v1');
    const registered = registeredRoutes(v1, '/v1');
    expect(registered.length).toBeGreaterThan(50);

    const documented = documentedOperations(document);
    expect(registered.filter((route) => !documented.includes(route))).toEqual([]);
    expect(documented.filter((operation) => !registered.includes(operation))).toEqual([]);
    expect(registered).toEqual(
      expect.arrayContaining(['POST /v1/projects/{projectId}/emails/{emailKey}/send', 'PATCH /v1/projects/{projectId}/users/by-email']),
    );
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
