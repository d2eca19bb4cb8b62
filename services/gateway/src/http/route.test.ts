import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { NotFoundError } from '@postbus/errors';
import { problemHandler } from '@postbus/http';
import { createLogger } from '@postbus/logger';
import type { IdempotencyRepository } from '../model/idempotency.repository';
import { apiRouteTable } from './api-routes';
import { apiRouter, defineRoute, scopeAllows } from './route';

describe('which keys may call a route (scopeAllows)', () => {
  const management = { scope: 'full' as const };
  const dataPlane = { scope: 'sdk' as const };
  const send = { scope: 'sdk' as const, testKeysMayCall: true as const };
  const messageRead = { scope: 'full' as const, testKeysMayCall: true as const };

  it('lets a full key call everything', () => {
    for (const route of [management, dataPlane, send, messageRead]) expect(scopeAllows(route, 'full')).toBe(true);
  });

  it('lets an sdk key call the data-plane routes only', () => {
    expect([management, dataPlane, send, messageRead].map((route) => scopeAllows(route, 'sdk'))).toEqual([false, true, true, false]);
  });

  it('lets a test key call only the routes open to it: the sends and the message reads', () => {
    expect([management, dataPlane, send, messageRead].map((route) => scopeAllows(route, 'test'))).toEqual([false, false, true, true]);
  });
});

describe('the tenant a route declares', () => {
  it('is declared by every route whose path has a parameter, naming its first one', () => {
    const undeclared = apiRouteTable().flatMap((route) => {
      const first = /:(\w+)/.exec(route.path)?.[1];
      if (first === undefined) return [];
      const named = route.tenant === undefined ? undefined : 'project' in route.tenant ? route.tenant.project : route.tenant.param;
      return named === first ? [] : [`${route.method.toUpperCase()} ${route.path}: ${named ?? 'none'}`];
    });
    expect(undeclared).toEqual([]);
  });

  it("a route of a project is refused with 404 for another client's project before its handler runs", async () => {
    const handled: string[] = [];
    const route = defineRoute({
      method: 'post',
      path: '/v1/projects/:projectId/things',
      operationId: 'makeThing',
      summary: 'Make a thing',
      tag: 'Things',
      scope: 'full',
      tenant: { project: 'projectId' },
      responses: { 200: { description: 'Made' } },
      handle: ({ params }) => {
        handled.push((params as { projectId: string }).projectId);
        return Promise.resolve({ status: 200, body: {} });
      },
    });
    const checked: string[] = [];
    const assertProject = (clientId: string, projectId: string) => {
      checked.push(`${clientId}:${projectId}`);
      return projectId === 'mine' ? Promise.resolve() : Promise.reject(new NotFoundError('No such project for this client.'));
    };
    const app = express();
    app.use((req, _res, next) => {
      req.client = { clientId: 'cl_a', scope: 'full', keyId: 'k1', via: 'key' };
      next();
    });
    app.use(apiRouter([route], { assertProject, idempotency: {} as IdempotencyRepository, idempotencyRetentionMs: 0 }));
    app.use(problemHandler(createLogger({ service: 'test', level: 'error' })));
    const server = app.listen(0, '127.0.0.1');
    await once(server, 'listening');
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/projects`;
      expect((await fetch(`${url}/theirs/things`, { method: 'POST' })).status).toBe(404);
      expect((await fetch(`${url}/mine/things`, { method: 'POST' })).status).toBe(200);
      expect(checked).toEqual(['cl_a:theirs', 'cl_a:mine']);
      expect(handled).toEqual(['mine']);
    } finally {
      server.close();
    }
  });
});
