import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { call, freePort, startService, uniqueName, waitFor, type CallResult, type ServiceProcess } from '@postbus/testing';
import { createClientAndProject, createSendableEmail, startSystem, type RunningSystem } from './system';

interface Component {
  id: string;
  status: string;
  detail: string;
}
interface Incident {
  id: string;
  automatic: boolean;
  status: string;
  componentIds: string[];
  updates: { status: string; body: string }[];
}
interface Maintenance {
  id: string;
  status: string;
  updates: { status: string }[];
}

const TOKEN = randomBytes(24).toString('base64url');
const PUBLIC_GROUPS = ['api', 'sending', 'webhooks', 'tracking', 'admin'];

/** The status service as an operator sees it, through its operator API. */
function operator(status: ServiceProcess) {
  const get = (path: string): Promise<CallResult> => call(status.url, 'GET', path, { headers: { authorization: `Bearer ${TOKEN}` } });
  return {
    async components(): Promise<Record<string, Component>> {
      const res = await get('/api/operator/status');
      if (res.status !== 200) throw new Error(`status answered ${res.status}`);
      return Object.fromEntries((res.body.components as Component[]).map((c) => [c.id, c]));
    },
    async incidents(): Promise<Incident[]> {
      return (await get('/api/operator/incidents')).body.data as Incident[];
    },
    async maintenance(id: string): Promise<Maintenance> {
      return (await get(`/api/operator/maintenances/${id}`)).body as Maintenance;
    },
    post: (path: string, json: unknown) => call(status.url, 'POST', path, { json, headers: { authorization: `Bearer ${TOKEN}` } }),
  };
}

describe('the status service watching the running system (issue 17)', () => {
  let system: RunningSystem;
  let status: ServiceProcess;
  let ops: ReturnType<typeof operator>;
  /** A webhook subscriber of the status page: every delivery it got, verified. */
  const deliveries: unknown[] = [];
  let receiver: http.Server;
  let secret = '';

  beforeAll(async () => {
    receiver = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        try {
          deliveries.push(new Webhook(secret).verify(Buffer.concat(chunks).toString('utf8'), req.headers as Record<string, string>));
          res.writeHead(204).end();
        } catch {
          res.writeHead(400).end();
        }
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    system = await startSystem({}, { submission: true });
    const client = await createClientAndProject(system);
    const email = await createSendableEmail(system, client);
    const id = uniqueName('status');
    status = await startService(
      'status',
      await freePort(),
      {
        ...system.env,
        GATEWAY_URL: system.gatewayUrl,
        // SMTP submission: its /readyz, and a session on its STARTTLS port (its self-signed certificate).
        SUBMISSION_URL: system.submission!.process.url,
        SUBMISSION_SMTP_URL: `smtp://127.0.0.1:${system.submission!.smtpPort}`,
        STATUS_DB_NAME: `${id}_status`.replace(/-/g, '_'),
        STATUS_SNAPSHOT_FILE: join(mkdtempSync(join(tmpdir(), 'status-e2e-')), 'snapshot.json'),
        STATUS_OPERATOR_TOKEN: TOKEN,
        STATUS_CHECK_INTERVAL_MS: '1000',
        STATUS_PROBE_TIMEOUT_MS: '2000',
        STATUS_CANARY_CLIENT_ID: client.clientId,
        STATUS_CANARY_API_KEY: client.apiKey,
        STATUS_CANARY_PROJECT_ID: client.projectId,
        STATUS_CANARY_EMAIL_KEY: email.emailKey,
        STATUS_CANARY_TO: 'canary@status.e2e.example',
        STATUS_CANARY_INTERVAL_MS: '3000',
        STATUS_SEND_DELAY_OUTAGE: '15000',
        STATUS_WEBHOOK_ALLOW_PRIVATE: 'true',
      },
      `${id}-status`,
    );
    ops = operator(status);
    // Subscriptions need the status database: a 503 until its first connection is made.
    const subscribed = await waitFor(
      async () => {
        const res = await call(status.url, 'POST', '/api/v2/subscribers', {
          json: { webhook: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/status-hook` },
        });
        if (res.status !== 201) throw new Error(`subscribing answered ${res.status}: ${res.text}`);
        return res;
      },
      { timeoutMs: 60_000, intervalMs: 500, what: 'the webhook subscription' },
    );
    secret = subscribed.body.secret as string;
  }, 180_000);

  afterAll(async () => {
    await status?.stop();
    await system?.stop();
    await new Promise((resolve) => receiver?.close(resolve));
  });

  it('when everything runs, every public component and the canary are operational', async () => {
    const components = await waitFor(
      async () => {
        const all = await ops.components();
        const publicOnes = Object.values(all).filter((c) => PUBLIC_GROUPS.includes(c.id.split('.')[0]!));
        const infrastructure = ['infrastructure.kafka', 'infrastructure.database.mailer', 'infrastructure.consumer-lag'].map(
          (id) => all[id]!,
        );
        // The databases are `unknown` (not down) until the first connection is made, which takes a moment under load.
        return [...publicOnes, ...infrastructure].every((c) => c.status === 'operational') && all;
      },
      { timeoutMs: 60_000, intervalMs: 500, what: 'every public component, Kafka and the databases to be operational' },
    );
    expect(components['sending.delay']!.detail).toMatch(/accepted → sent in/);
    expect(components['api.submission']!.detail).toBe('submission ready; submission accepts TLS and AUTH');
    expect(components['infrastructure.kafka']!.status).toBe('operational');
    expect(components['infrastructure.database.mailer']!.status).toBe('operational');
    expect(components['infrastructure.consumer-lag']!.status).toBe('operational');
  }, 90_000);

  it('when the mailer is stopped, Sending leaves operational within 30 s with an automatic incident; restarted, both recover by themselves', async () => {
    await system.services.mailer.kill();
    const down = await waitFor(
      async () => {
        const mailer = (await ops.components())['sending.mailer']!;
        return mailer.status !== 'operational' && mailer;
      },
      { timeoutMs: 30_000, intervalMs: 250, what: 'Sending (mailer) to leave operational' },
    );
    expect(down.status).toBe('major_outage');
    expect(down.detail).toMatch(/mailer unreachable/);
    const incident = await waitFor(
      async () => (await ops.incidents()).find((i) => i.automatic && i.componentIds.includes('sending.mailer')),
      {
        timeoutMs: 10_000,
        what: 'an automatic incident for the mailer',
      },
    );
    expect(incident.status).toBe('investigating');
    // The public page (the publishing router on the same engine) says so too.
    const unresolved = await call(status.url, 'GET', '/api/v2/incidents/unresolved.json');
    expect(unresolved.status).toBe(200);
    expect((unresolved.body.incidents as Array<{ id: string }>).map((i) => i.id)).toContain(incident.id);
    const summary = await call(status.url, 'GET', '/api/v2/summary.json');
    expect(summary.body.status.indicator).not.toBe('none');
    const page = await call(status.url, 'GET', '/');
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toContain('text/html');
    // The feed and the webhook subscriber get it too (a signed Standard Webhooks delivery).
    const atom = await call(status.url, 'GET', '/history.atom');
    expect(atom.status).toBe(200);
    expect(atom.text).toContain(incident.id);
    await waitFor(() => JSON.stringify(deliveries).includes(incident.id), {
      timeoutMs: 20_000,
      what: 'the webhook subscriber to get the incident',
    });

    await system.restart('mailer');
    await waitFor(async () => (await ops.components())['sending.mailer']!.status === 'operational', {
      timeoutMs: 30_000,
      intervalMs: 250,
      what: 'the mailer to be operational again',
    });
    // The canary's sends wait for the mailer too; the incident resolves when all it covers is back.
    const resolved = await waitFor(
      async () => {
        const found = (await ops.incidents()).find((i) => i.id === incident.id);
        return found?.status === 'resolved' && found;
      },
      { timeoutMs: 90_000, intervalMs: 500, what: 'the automatic incident to resolve itself' },
    );
    expect(resolved.updates[0]!.body).toMatch(/recovered/);
  }, 180_000);

  it('when SMTP submission is stopped, its component leaves operational within 30 s, with an automatic incident', async () => {
    await system.submission!.process.kill();
    const down = await waitFor(
      async () => {
        const submission = (await ops.components())['api.submission']!;
        return submission.status !== 'operational' && submission;
      },
      { timeoutMs: 30_000, intervalMs: 250, what: 'SMTP submission to leave operational' },
    );
    expect(down).toMatchObject({ status: 'major_outage', detail: expect.stringMatching(/^submission unreachable: /) });
    await waitFor(async () => (await ops.incidents()).some((i) => i.automatic && i.componentIds.includes('api.submission')), {
      timeoutMs: 10_000,
      what: 'an automatic incident for SMTP submission',
    });
  }, 60_000);
});

describe('the status service with Kafka and MongoDB unreachable (issue 17)', () => {
  let status: ServiceProcess;
  let ops: ReturnType<typeof operator>;
  const snapshotFile = join(mkdtempSync(join(tmpdir(), 'status-e2e-')), 'snapshot.json');
  let env: Record<string, string>;
  let port: number;

  beforeAll(async () => {
    // Nothing listens on these: the shared Kafka and database are never stopped for this.
    const [deadKafka, deadMongo, deadService] = await Promise.all([freePort(), freePort(), freePort()]);
    port = await freePort();
    const nowhere = `http://127.0.0.1:${deadService}`;
    env = {
      KAFKA_BROKERS: `127.0.0.1:${deadKafka}`,
      MONGO_URL: `mongodb://127.0.0.1:${deadMongo}`,
      GATEWAY_URL: nowhere,
      USERS_URL: nowhere,
      MAILER_URL: nowhere,
      WEBHOOKS_URL: nowhere,
      PAYMENTS_URL: nowhere,
      ERASURE_URL: nowhere,
      SUBMISSION_URL: nowhere,
      SUBMISSION_SMTP_URL: `smtp://127.0.0.1:${deadService}`,
      SMTP_URL: `smtp://127.0.0.1:${deadService}`,
      STATUS_SNAPSHOT_FILE: snapshotFile,
      STATUS_OPERATOR_TOKEN: TOKEN,
      STATUS_CHECK_INTERVAL_MS: '500',
      STATUS_PROBE_TIMEOUT_MS: '1000',
      STATUS_MAINTENANCE_VERIFY_MS: '1000',
    };
    status = await startService('status', port, env, uniqueName('status-isolated'));
    ops = operator(status);
  }, 60_000);

  afterAll(() => status?.stop());

  it('still answers, and says Kafka and the databases are down', async () => {
    const components = await waitFor(
      async () => {
        const all = await ops.components();
        return (
          all['infrastructure.kafka']!.status === 'major_outage' && all['infrastructure.database.mailer']!.status === 'major_outage' && all
        );
      },
      { timeoutMs: 30_000, intervalMs: 250, what: 'Kafka and the databases to show down' },
    );
    expect(components['infrastructure.kafka']!.detail).toMatch(/Kafka unreachable/);
    expect(components['infrastructure.consumer-lag']!.status).toBe('unknown');
    expect(components['sending.delay']).toMatchObject({ status: 'unknown', detail: expect.stringMatching(/canary is not configured/) });
    expect((await call(status.url, 'GET', '/readyz')).status).toBe(200);
  }, 40_000);

  it('a scheduled maintenance moves through its states by the clock', async () => {
    const now = Date.now();
    const scheduled = await ops.post('/api/operator/maintenances', {
      name: 'Broker upgrade',
      body: 'Kafka is upgraded; sends may be delayed.',
      component_ids: ['infrastructure.kafka'],
      scheduled_for: new Date(now + 2000).toISOString(),
      scheduled_until: new Date(now + 5000).toISOString(),
    });
    expect(scheduled.status).toBe(201);
    const id = scheduled.body.id as string;
    expect(scheduled.body.status).toBe('scheduled');
    await waitFor(async () => (await ops.maintenance(id)).status === 'in_progress', { timeoutMs: 10_000, what: 'in_progress' });
    expect((await ops.components())['infrastructure.kafka']!.status).toBe('under_maintenance');
    // Kafka stays down here, so it completes after the (1 s) verify period rather than on a good check.
    const done = await waitFor(
      async () => {
        const m = await ops.maintenance(id);
        return m.status === 'completed' && m;
      },
      { timeoutMs: 15_000, what: 'completed' },
    );
    expect(done.updates.map((u) => u.status)).toEqual(['completed', 'verifying', 'in_progress', 'scheduled']);
    expect((await ops.components())['infrastructure.kafka']!.status).toBe('major_outage');
  }, 40_000);

  it('restarted with the database still down, it serves what it knew from its snapshot file', async () => {
    const before = await ops.incidents();
    expect(before.length).toBeGreaterThan(0);
    await status.stop();
    status = await startService('status', port, env, uniqueName('status-isolated'));
    ops = operator(status);
    const after = await ops.incidents();
    expect(after.map((i) => i.id)).toEqual(expect.arrayContaining(before.map((i) => i.id)));
    const maintenances = (await call(status.url, 'GET', '/api/operator/maintenances', { headers: { authorization: `Bearer ${TOKEN}` } }))
      .body.data as Maintenance[];
    expect(maintenances.map((m) => m.status)).toEqual(['completed']);
  }, 60_000);
});
