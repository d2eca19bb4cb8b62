import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { basicAuth, call, repoRoot, sleep, type ServiceProcess } from '@postbus/testing';
import { createClientAndProject, startSystem, type DemoClient, type RunningSystem } from './system';

describe('API keys across gateway instances', () => {
  let system: RunningSystem;
  let second: ServiceProcess;
  let client: DemoClient;

  beforeAll(async () => {
    system = await startSystem();
    second = await system.startInstance('gateway', 'gateway-2');
    client = await createClientAndProject(system);
  });

  afterAll(async () => {
    await second?.stop();
    await system?.stop();
  });

  const gateways = () => [system.gatewayUrl, second.url];

  /** Milliseconds until every probe answers 401; fails past the deadline. */
  async function msUntilRefused(probes: Array<() => Promise<number>>, deadlineMs = 3000): Promise<number> {
    const started = Date.now();
    for (;;) {
      const statuses = await Promise.all(probes.map((p) => p()));
      if (statuses.every((s) => s === 401)) return Date.now() - started;
      if (Date.now() - started > deadlineMs) throw new Error(`still accepted after ${deadlineMs} ms: ${statuses.join(', ')}`);
      await sleep(20);
    }
  }

  it('13.4 a revoked key is refused by every gateway instance within 1 s and its sessions die', async () => {
    const made = await call(system.gatewayUrl, 'POST', '/v1/keys', { auth: client.auth, json: { name: 'laptop', scope: 'full' } });
    expect(made.status).toBe(201);
    const auth = basicAuth(client.clientId, made.body.api_key as string);
    const sessions: string[] = [];
    for (const url of gateways()) {
      expect((await call(url, 'GET', `/v1/projects/${client.projectId}`, { auth })).status).toBe(200);
      const session = await call(url, 'POST', '/v1/auth/session', { auth });
      expect(session.status).toBe(201);
      sessions.push(`Bearer ${session.body.token}`);
    }

    expect((await call(second.url, 'DELETE', `/v1/keys/${made.body.id}`, { auth: client.auth })).status).toBe(200);
    const probes = gateways().flatMap((url) =>
      [auth, ...sessions].map((credentials) => () => call(url, 'GET', '/v1/projects', { auth: credentials }).then((r) => r.status)),
    );
    expect(await msUntilRefused(probes)).toBeLessThan(1000);
    const listed = await call(system.gatewayUrl, 'GET', '/v1/keys', { auth: client.auth });
    expect(listed.body.data.find((k: { id: string }) => k.id === made.body.id).revoked_at).toEqual(expect.any(String));
  });

  it('a key bound to a project acts on that project alone, and names it by itself (Bearer, or Basic with any user name)', async () => {
    const other = await call(system.gatewayUrl, 'POST', '/v1/projects', { auth: client.auth, json: { name: 'Other' } });
    expect(other.status).toBe(201);
    const stranger = await createClientAndProject(system);
    const refused = await call(system.gatewayUrl, 'POST', '/v1/keys', {
      auth: client.auth,
      json: { name: 'not ours', scope: 'full', project_id: stranger.projectId },
    });
    expect(refused.status).toBe(422);
    expect(refused.body.errors).toEqual([expect.objectContaining({ pointer: '/project_id' })]);

    const made = await call(system.gatewayUrl, 'POST', '/v1/keys', {
      auth: client.auth,
      json: { name: 'checkout', scope: 'full', project_id: client.projectId },
    });
    expect(made.status).toBe(201);
    expect(made.body.project_id).toBe(client.projectId);
    const key = made.body.api_key as string;
    const listed = await call(system.gatewayUrl, 'GET', '/v1/keys', { auth: client.auth });
    expect(listed.body.data.find((k: { id: string }) => k.id === made.body.id).project_id).toBe(client.projectId);

    for (const auth of [`Bearer ${key}`, basicAuth('apikey', key), basicAuth(client.projectId, key), basicAuth(client.clientId, key)]) {
      const whoami = await call(system.gatewayUrl, 'GET', '/v1/auth/whoami', { auth });
      expect(whoami.status).toBe(200);
      expect(whoami.body).toMatchObject({ client_id: client.clientId, project_id: client.projectId, key_id: made.body.id });
      expect((await call(system.gatewayUrl, 'GET', `/v1/projects/${client.projectId}`, { auth })).status).toBe(200);
      // Another project of the same client, and the client's own management, are out of its reach.
      expect((await call(system.gatewayUrl, 'GET', `/v1/projects/${other.body.id}`, { auth })).status).toBe(403);
      expect((await call(system.gatewayUrl, 'GET', '/v1/keys', { auth })).status).toBe(403);
      expect((await call(system.gatewayUrl, 'POST', '/v1/auth/session', { auth })).status).toBe(403);
    }
    // Another project's or client's id as the user name is no name for it.
    for (const auth of [basicAuth(other.body.id as string, key), basicAuth(stranger.clientId, key)])
      expect((await call(system.gatewayUrl, 'GET', '/v1/auth/whoami', { auth })).status).toBe(401);
    // A key of the whole client sent alone names the client: it manages, and acts on any of its projects.
    const whole = `Bearer ${client.apiKey}`;
    expect((await call(system.gatewayUrl, 'GET', '/v1/keys', { auth: whole })).status).toBe(200);
    expect((await call(system.gatewayUrl, 'GET', `/v1/projects/${other.body.id}`, { auth: whole })).status).toBe(200);
    expect((await call(system.gatewayUrl, 'GET', '/v1/keys', { auth: 'Bearer pb_full_not-a-key' })).status).toBe(401);

    expect((await call(system.gatewayUrl, 'DELETE', `/v1/keys/${made.body.id}`, { auth: client.auth })).status).toBe(200);
    expect(
      await msUntilRefused(
        gateways().map((url) => () => call(url, 'GET', '/v1/auth/whoami', { auth: `Bearer ${key}` }).then((r) => r.status)),
      ),
    ).toBeLessThan(1000);
  });

  it('13.4 the operator CLI creates, lists and revokes keys, and running gateways refuse a revoked one within 1 s', async () => {
    const cli = (...args: string[]) =>
      execFileSync(
        process.execPath,
        [join(repoRoot, 'services/gateway/bin/postbus.js'), 'keys', ...args, '--client', client.clientId, '--json'],
        {
          env: { ...process.env, ...system.env },
          encoding: 'utf8',
        },
      );
    const made = JSON.parse(cli('create', '--name', 'ci', '--scope', 'sdk')) as { id: string; api_key: string; scope: string };
    expect(made.scope).toBe('sdk');
    const auth = basicAuth(client.clientId, made.api_key);
    const trigger = (url: string) => () =>
      call(url, 'POST', `/v1/projects/${client.projectId}/users`, { auth, json: { email: 'cli@example.com' } }).then((r) => r.status);
    for (const url of gateways()) expect(await trigger(url)()).toBe(200);
    expect((JSON.parse(cli('list')) as { data: Array<{ id: string }> }).data.map((k) => k.id)).toContain(made.id);
    cli('revoke', made.id);
    expect(await msUntilRefused(gateways().map(trigger))).toBeLessThan(1000);
  });
});
