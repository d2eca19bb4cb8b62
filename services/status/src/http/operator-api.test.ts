import type { Server } from 'node:http';
import express from 'express';
import { listen, closeServer, notFoundHandler, problemHandler, requestId } from '@postbus/http';
import { createLogger } from '@postbus/logger';
import { componentDefinitions, ComponentIds } from '../domain/components';
import { testEngine } from '../../test/test-engine';
import { operatorApi } from './operator-api';

const TOKEN = 'operator-token-for-tests-0123456789';

describe('operator API', () => {
  let server: Server;
  let base: string;
  const engine = testEngine();

  beforeAll(async () => {
    const app = express();
    app.use(requestId);
    app.use(operatorApi(engine, TOKEN));
    app.use(notFoundHandler);
    app.use(problemHandler(createLogger({ service: 'status-test', level: 'error' })));
    ({ server } = await listen(app, 0, '127.0.0.1'));
    const address = server.address();
    base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  });
  afterAll(() => closeServer(server));

  const call = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
    const res = await fetch(`${base}${path}`, {
      method,
      headers: { authorization: `Bearer ${TOKEN}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...headers },
      ...(body !== undefined ? { body: typeof body === 'string' ? body : JSON.stringify(body) } : {}),
    });
    return { status: res.status, type: res.headers.get('content-type') ?? '', body: (await res.json()) as Record<string, unknown> };
  };

  it('when the token is missing or wrong, every call is refused with 401 problem+json', async () => {
    for (const authorization of ['', 'Bearer wrong-token-wrong-token', `Basic ${TOKEN}`]) {
      const res = await call('GET', '/api/operator/status', undefined, { authorization });
      expect(res.status).toBe(401);
      expect(res.type).toContain('application/problem+json');
    }
  });

  it('when an operator opens an incident and updates it, both are stored and shown', async () => {
    const opened = await call('POST', '/api/operator/incidents', {
      name: 'Webhooks delayed',
      body: 'We are investigating delayed webhook deliveries.',
      impact: 'minor',
      component_ids: [ComponentIds.dispatcher],
    });
    expect(opened.status).toBe(201);
    expect(opened.body).toMatchObject({ status: 'investigating', impact: 'minor', automatic: false });
    const updated = await call('POST', `/api/operator/incidents/${String(opened.body['id'])}/updates`, {
      status: 'identified',
      body: 'A slow endpoint.',
    });
    expect(updated.status).toBe(201);
    expect(updated.body['status']).toBe('identified');
    const list = await call('GET', '/api/operator/incidents');
    expect((list.body['data'] as unknown[]).length).toBe(1);
  });

  it('when a body is invalid, the answer is 400 naming the fields, never a 500', async () => {
    const bad = await call('POST', '/api/operator/incidents', { name: '', body: 'x', status: 'exploded', extra: 1 });
    expect(bad.status).toBe(400);
    const pointers = (bad.body['errors'] as { pointer: string }[]).map((e) => e.pointer);
    expect(pointers).toEqual(expect.arrayContaining(['/name', '/status', '/extra']));
    expect((await call('POST', '/api/operator/incidents', '{not json')).status).toBe(400);
    expect((await call('POST', '/api/operator/incidents', [])).status).toBe(400);
    expect((await call('POST', '/api/operator/incidents', 'x', { 'content-type': 'text/plain' })).status).toBe(415);
    expect((await call('POST', '/api/operator/incidents', { name: 'x', body: 'y', component_ids: ['no.such'] })).status).toBe(400);
    expect((await call('POST', '/api/operator/incidents/unknown/updates', { status: 'resolved', body: 'y' })).status).toBe(404);
    const backwards = await call('POST', '/api/operator/maintenances', {
      name: 'x',
      component_ids: [ComponentIds.mailer],
      scheduled_for: '2030-01-01T10:00:00Z',
      scheduled_until: '2030-01-01T09:00:00Z',
    });
    expect(backwards.status).toBe(400);
    expect(
      (
        await call('POST', '/api/operator/maintenances', {
          name: 'x',
          component_ids: [ComponentIds.mailer],
          scheduled_for: 'tomorrow',
          scheduled_until: 'later',
        })
      ).status,
    ).toBe(400);
  });

  it('when an operator schedules a maintenance, it is scheduled and can be completed by hand', async () => {
    const scheduled = await call('POST', '/api/operator/maintenances', {
      name: 'Kafka upgrade',
      body: 'Sending may be delayed.',
      component_ids: [ComponentIds.kafka],
      scheduled_for: '2030-01-01T10:00:00Z',
      scheduled_until: '2030-01-01T11:00:00Z',
    });
    expect(scheduled.status).toBe(201);
    expect(scheduled.body['status']).toBe('scheduled');
    const done = await call('POST', `/api/operator/maintenances/${String(scheduled.body['id'])}/updates`, {
      status: 'completed',
      body: 'Cancelled: not needed.',
    });
    expect(done.body['status']).toBe('completed');
    const status = await call('GET', '/api/operator/status');
    expect((status.body['components'] as unknown[]).length).toBe(componentDefinitions().length);
  });
});
