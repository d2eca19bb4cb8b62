import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  basicAuth,
  call,
  freePort,
  portOpen,
  repoRoot,
  startDnsServer,
  startSmtpSink,
  uniqueName,
  waitFor,
  type LocalDnsServer,
  type SmtpSink,
} from '@postbus/testing';

/** Every process below `pid` (children, grandchildren…), from ps. */
function descendants(pid: number): Array<{ pid: number; args: string }> {
  const rows = execFileSync('ps', ['-e', '-o', 'pid=,ppid=,args='], { encoding: 'utf8' })
    .split('\n')
    .map((line) => /^\s*(\d+)\s+(\d+)\s+(.*)$/.exec(line))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => ({ pid: Number(m[1]), ppid: Number(m[2]), args: m[3]! }));
  const found: Array<{ pid: number; args: string }> = [];
  const walk = (parent: number) => {
    for (const row of rows.filter((r) => r.ppid === parent)) {
      found.push(row);
      walk(row.pid);
    }
  };
  walk(pid);
  return found;
}

/** True while the process runs (a zombie left for its new parent to reap counts as gone). */
function running(pid: number): boolean {
  try {
    return readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.[0] !== 'Z';
  } catch {
    return false;
  }
}

describe('npm start on one host, configured by its environment', () => {
  let dns: LocalDnsServer;
  let relay: SmtpSink;
  let start: ChildProcess | undefined;
  let output = '';
  let dataDir: string;
  const ports: Record<string, number> = {};

  beforeAll(async () => {
    [dns, relay] = await Promise.all([startDnsServer(), startSmtpSink()]);
    dataDir = mkdtempSync(join(tmpdir(), 'postbus-start-'));
    for (const name of [
      'PORT',
      'USERS_PORT',
      'MAILER_PORT',
      'WEBHOOKS_PORT',
      'PAYMENTS_PORT',
      'ERASURE_PORT',
      'INTERNAL_PORT',
      'STATUS_PORT',
      'INBOUND_PORT',
      'INBOUND_SMTP_PORT',
      'SUBMISSION_INTERNAL_PORT',
      'SUBMISSION_PORT',
      'SUBMISSION_TLS_PORT',
      'SINK_HTTP_PORT',
      'SINK_SMTP_PORT',
    ])
      ports[name] = await freePort();
    const id = uniqueName('start');
    const db = (service: string) => `${id}_${service}`.replace(/-/g, '_');
    const env: Record<string, string> = {
      ...(process.env as Record<string, string>),
      ...Object.fromEntries(Object.entries(ports).map(([name, port]) => [name, String(port)])),
      POSTBUS_DATA_DIR: dataDir,
      KAFKA_NAMESPACE: id,
      KAFKA_TOPIC_PARTITIONS: '2',
      GATEWAY_DB_NAME: db('gateway'),
      USERS_DB_NAME: db('users'),
      MAILER_DB_NAME: db('mailer'),
      WEBHOOKS_DB_NAME: db('webhooks'),
      PAYMENTS_DB_NAME: db('payments'),
      ERASURE_DB_NAME: db('erasure'),
      STATUS_DB_NAME: db('status'),
      INBOUND_DB_NAME: db('inbound'),
      DNS_SERVERS: dns.address,
      SMTP_URL: relay.smtpUrl,
      WEBHOOK_ALLOWED_HOSTS: '127.0.0.1',
    };
    // Its own process group, so that the clean-up reaches every process npm start made.
    start = spawn('npm', ['start'], { cwd: repoRoot, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    start.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    start.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    await waitFor(
      () => {
        if (start!.exitCode !== null) throw new Error(`npm start exited with ${start!.exitCode}:\n${output}`);
        return output.includes('Postbus is running.');
      },
      { timeoutMs: 150_000, intervalMs: 250, what: 'npm start to print the demo' },
    );
  }, 180_000);

  afterAll(async () => {
    if (start?.pid) {
      try {
        process.kill(-start.pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
    await Promise.all([relay?.process.stop(), dns?.close()]);
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('uses the relay and DNS servers it is given: no local sink starts, the demo domain verifies through the given DNS server and the demo mail arrives at the given relay', async () => {
    expect(output).toContain(`[postbus] relay ${relay.smtpUrl}`);
    expect(output).toContain(`[postbus] DNS servers for domain verification: ${dns.address}`);
    expect(output).toContain('The demo domain is not verified by DNS_SERVERS');
    expect(await portOpen('127.0.0.1', ports['SINK_SMTP_PORT']!)).toBe(false);
    expect(await portOpen('127.0.0.1', ports['SINK_HTTP_PORT']!)).toBe(false);

    const demo = JSON.parse(readFileSync(join(dataDir, 'demo-client.json'), 'utf8')) as {
      clientId: string;
      apiKey: string;
      projectId: string;
    };
    const auth = basicAuth(demo.clientId, demo.apiKey);
    const gateway = `http://127.0.0.1:${ports['PORT']}`;
    const domains = await call(gateway, 'GET', '/v1/sender-domains', { auth });
    const domain = (
      domains.body.data as Array<{ id: string; domain: string; status: string; records: Array<{ name: string; value: string }> }>
    ).find((d) => d.domain === 'demo.postbus.test')!;
    expect(domain.status).not.toBe('verified');

    for (const record of domain.records) dns.publish(record.name, 'TXT', [record.value]);
    const verified = await call(gateway, 'POST', `/v1/sender-domains/${domain.id}/verify`, { auth });
    expect(verified.body.status).toBe('verified');

    const sent = await call(gateway, 'POST', `/v1/projects/${demo.projectId}/emails/welcome/send`, {
      auth,
      json: { user: { email: 'ada@example.com', name: 'Ada' }, data: { code: '4711' } },
    });
    expect(sent.status).toBe(200);
    const mail = await relay.client.waitForMessageId(`${sent.body.message_id as string}@demo.postbus.test`, 15_000);
    expect(mail.Subject).toBe('Welcome to Postbus, Ada');
  });

  it('runs the status service on its port, its operator API behind the token it keeps in the data directory', async () => {
    const status = `http://127.0.0.1:${ports['STATUS_PORT']}`;
    expect(output).toContain(`Status page  http://localhost:${ports['STATUS_PORT']}`);
    expect((await call(status, 'GET', '/api/v2/status.json')).status).toBe(200);
    const { STATUS_OPERATOR_TOKEN: token } = JSON.parse(readFileSync(join(dataDir, 'secrets.json'), 'utf8')) as {
      STATUS_OPERATOR_TOKEN: string;
    };
    expect((await call(status, 'GET', '/api/operator/status')).status).toBe(401);
    const gatewayUp = await waitFor(
      async () => {
        const res = await call(status, 'GET', '/api/operator/status', { headers: { authorization: `Bearer ${token}` } });
        return (res.body.components as Array<{ id: string; status: string }>).find(
          (c) => c.id === 'api.gateway' && c.status === 'operational',
        );
      },
      { timeoutMs: 30_000, what: 'the status service to see the gateway up' },
    );
    expect(gatewayUp).toBeDefined();
  });

  it('runs the inbound MX on 127.0.0.1 and the port it prints', async () => {
    expect(output).toContain(`Inbound MX   smtp://127.0.0.1:${ports['INBOUND_SMTP_PORT']}`);
    expect(await portOpen('127.0.0.1', ports['INBOUND_SMTP_PORT']!)).toBe(true);
  });

  it('runs SMTP submission on 127.0.0.1 and the ports it prints, with a self-signed certificate it keeps in the data directory', async () => {
    expect(output).toContain(
      `SMTP         127.0.0.1:${ports['SUBMISSION_PORT']} (STARTTLS) · 127.0.0.1:${ports['SUBMISSION_TLS_PORT']} (implicit TLS)`,
    );
    expect(output).toMatch(/SMTP login {3}user [0-9a-f]{24} · password pb_full_/);
    expect(await portOpen('127.0.0.1', ports['SUBMISSION_PORT']!)).toBe(true);
    expect(await portOpen('127.0.0.1', ports['SUBMISSION_TLS_PORT']!)).toBe(true);
    expect(existsSync(join(dataDir, 'submission-tls', 'cert.pem'))).toBe(true);
    expect(statSync(join(dataDir, 'submission-tls', 'key.pem')).mode & 0o077).toBe(0);
  });

  it('when npm start is killed outright (SIGKILL), the services it started stop by themselves', async () => {
    const starter = descendants(start!.pid!).find((p) => /^\S*node scripts\/dist\/start\.js$/.test(p.args));
    expect(starter).toBeDefined();
    const services = descendants(starter!.pid).filter((p) => p.args.includes('/dist/main.js'));
    expect(services.length).toBe(9); // the sink was not started: SMTP_URL names the relay; the status service, the inbound MX and SMTP submission were
    process.kill(starter!.pid, 'SIGKILL');
    await waitFor(
      async () => {
        return services.every((s) => !running(s.pid)) && !(await portOpen('127.0.0.1', ports['PORT']!));
      },
      { timeoutMs: 30_000, intervalMs: 250, what: 'the services to stop after their parent died' },
    );
  }, 60_000);
});
