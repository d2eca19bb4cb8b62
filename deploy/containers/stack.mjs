// The container tests' shared machinery (deploy/containers/test.mjs and chaos.mjs): the stack's
// settings and secrets, podman and podman-compose calls, health checks, HTTP helpers, the
// helpers that run inside the gateway's container (a DNS server, a webhook receiver), the
// signature checks, and the set-up steps both tests take (a client made with the CLI, a verified
// sender domain and a project, a `welcome` email).
/* global AbortSignal, Buffer, console, fetch, process, setTimeout -- a plain Node script, run without a build */
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const here = dirname(fileURLToPath(import.meta.url));
export const root = join(here, '..', '..');
export const gatewayUrl = 'http://127.0.0.1:18080';
export const statusUrl = 'http://127.0.0.1:18090';
export const sinkUrl = 'http://127.0.0.1:18025';
/** SMTP submission's STARTTLS port on the host (compose.podman.yml). */
export const submissionPort = 12587;
export const services = ['users', 'payments', 'erasure', 'mailer', 'webhook-dispatcher', 'inbound', 'gateway', 'submission', 'status'];
export const heavy = ['nice', '-n', '19', 'ionice', '-c3'];
// The webhook receiver runs in the gateway's container (startReceiver): a private address, which
// the dispatcher refuses unless the operator admits it, as docker-compose.yml lets one do.
export const receiverPort = 9999;
export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

const requireHere = createRequire(join(root, 'package.json'));

/**
 * One compose stack: `project` its name, `single` the single-broker variant, `extraFiles` more
 * compose files after compose.podman.yml, `tag` the prefix of the lines it prints. `priority`:
 * how compose runs (the containers inherit it): `heavy` by default; the chaos test, which measures
 * latencies under load, gives the stack the priority other builds and tests on the machine have.
 */
export function createStack({ project, single = false, extraFiles = [], tag, priority = heavy }) {
  const brokers = single ? ['kafka-1'] : ['kafka-1', 'kafka-2', 'kafka-3'];
  const started = Date.now();

  const env = { ...process.env, CONTAINERS_CONF: join(here, 'containers.conf') };
  const secret = (bytes) => randomBytes(bytes).toString('base64');
  for (const [name, bytes] of [
    ['SECRETS_KEY', 32],
    ['SESSION_SECRET', 48],
    ['TRACKING_SECRET', 48],
    ['INTERNAL_API_SECRET', 48],
    ['ERASURE_AUDIT_KEY', 48],
    ['STATUS_OPERATOR_TOKEN', 32],
    ['STATUS_SUBSCRIPTION_SECRET', 32],
    ['STATUS_SECRETS_KEY', 32],
  ])
    env[`POSTBUS_${name}`] = secret(bytes);
  env.POSTBUS_PUBLIC_BASE_URL = 'http://localhost:18080';
  env.POSTBUS_STATUS_PUBLIC_URL = 'http://localhost:18090';
  env.POSTBUS_WEBHOOK_ALLOWED_HOSTS = `gateway:${receiverPort}`;
  // SMTP submission's certificate: docker-compose.yml mounts the folder POSTBUS_SUBMISSION_TLS_DIR
  // names (tls.key, tls.crt); here a self-signed one, readable by the containers' user (UID 1000).
  const tlsDir = mkdtempSync(join(tmpdir(), 'postbus-ctest-tls-'));
  const [keyFile, certFile] = [join(tlsDir, 'tls.key'), join(tlsDir, 'tls.crt')];
  const certificateArgs = ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '30', '-subj', '/CN=localhost'];
  const openssl = spawnSync('openssl', [...certificateArgs, '-keyout', keyFile, '-out', certFile], { encoding: 'utf8' });
  if (openssl.status !== 0) throw new Error(`openssl could not make the SMTP submission certificate: ${openssl.stderr}`);
  chmodSync(tlsDir, 0o755);
  chmodSync(keyFile, 0o644);
  env.POSTBUS_SUBMISSION_TLS_DIR = tlsDir;
  // The name it greets with: the certificate's (its host ports are compose.podman.yml's).
  env.POSTBUS_SUBMISSION_HOSTNAME = 'localhost';

  const say = (line) => console.log(`[${tag}] ${line}`);
  const elapsed = () => `${Math.round((Date.now() - started) / 1000)} s`;

  function run(cmd, args, { quiet = false, allowFail = false, timeoutMs = 600_000 } = {}) {
    const r = spawnSync(cmd, args, { cwd: root, env, encoding: 'utf8', timeout: timeoutMs, maxBuffer: 64 * 1024 * 1024 });
    if (!quiet && r.stderr) process.stderr.write(r.stderr);
    if (r.status !== 0 && !allowFail)
      throw new Error(`${cmd} ${args.join(' ')} exited ${r.status ?? r.signal}: ${(r.stderr || r.stdout || '').slice(-2000)}`);
    return r;
  }

  /** A long command whose output is streamed (the image builds, compose up). */
  function stream(cmd, args) {
    return new Promise((resolve, reject) => {
      const child = spawn(cmd, args, { cwd: root, env, stdio: ['ignore', 'inherit', 'inherit'] });
      child.on('error', reject);
      child.on('exit', (code, signal) => (code === 0 ? resolve() : reject(new Error(`${cmd} ${args.join(' ')} exited ${code ?? signal}`))));
    });
  }

  /** podman-compose (podman.sh compose: the project's containers.conf) on docker-compose.yml and the overrides. */
  const composeArgs = (args) => [
    ...priority.slice(1),
    'bash',
    join(here, 'podman.sh'),
    'compose',
    '-p',
    project,
    '-f',
    'docker-compose.yml',
    ...(single ? ['-f', 'docker-compose.single-broker.yml'] : []),
    '-f',
    'deploy/containers/compose.podman.yml',
    ...extraFiles.flatMap((file) => ['-f', file]),
    ...args,
  ];
  const compose = (args, options) => run(priority[0], composeArgs(args), options);
  const container = (service) => `${project}_${service}_1`;

  const results = [];
  async function check(name, fn) {
    const t = Date.now();
    try {
      const detail = await fn();
      results.push({ name, ok: true });
      say(`ok   ${name}${detail ? ` (${detail})` : ''} [${Date.now() - t} ms]`);
      return true;
    } catch (error) {
      results.push({ name, ok: false });
      say(`FAIL ${name}: ${error instanceof Error ? error.message : String(error)}`);
      return false;
    }
  }

  /** Runs a container's health check (podman does not schedule them without systemd). */
  const healthy = (service) =>
    run('podman', ['healthcheck', 'run', container(service)], { quiet: true, allowFail: true, timeoutMs: 40_000 }).status === 0;

  /** Runs the health checks of the services until each has passed once. */
  async function waitHealthy(names, timeoutMs) {
    const pending = new Set(names);
    await until(
      `not healthy: ${names.join(', ')}`,
      timeoutMs,
      async () => {
        for (const service of [...pending]) if (healthy(service)) pending.delete(service);
        return pending.size === 0;
      },
      3000,
    );
  }

  function showLogs(service, lines = 40) {
    const r = run('podman', ['logs', '--tail', String(lines), container(service)], { quiet: true, allowFail: true });
    console.log(`----- ${service} (last ${lines} lines) -----\n${r.stdout}${r.stderr}`);
  }

  /** Runs a Node script in the gateway's container (its network namespace), once it prints "ready"; stdin's end stops it. */
  async function nodeInGateway(script, what) {
    const child = spawn('podman', ['exec', '-i', container('gateway'), 'node', '-e', script], {
      cwd: root,
      env,
      stdio: ['pipe', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk) => (out += chunk));
    await until(`${what} in the gateway container`, 30_000, async () => out.includes('ready'), 200);
    return { child, output: () => out };
  }

  /**
   * The test's DNS server: libs/testing's, run with `podman exec` inside the gateway's container
   * (its network namespace: the gateway's DNS_SERVERS is 127.0.0.1:5353 in compose.podman.yml).
   * Records are published by writing {name, type, value} lines to its standard input.
   */
  async function startDns() {
    const script = `
    const { startDnsServer } = require('/app/libs/testing/dist/dns-server.js');
    startDnsServer(5353, '127.0.0.1').then((dns) => {
      console.log('ready ' + dns.address);
      let buffer = '';
      process.stdin.on('data', (chunk) => {
        buffer += chunk;
        let i;
        while ((i = buffer.indexOf('\\n')) >= 0) {
          const r = JSON.parse(buffer.slice(0, i));
          buffer = buffer.slice(i + 1);
          dns.publish(r.name, r.type, [r.value]);
          console.log('published ' + r.name);
        }
      });
      process.stdin.on('end', () => dns.close().then(() => process.exit(0)));
    });`;
    const { child, output } = await nodeInGateway(script, 'the DNS server');
    return {
      publish: async (records) => {
        const before = (output().match(/published /g) ?? []).length;
        for (const r of records) child.stdin.write(`${JSON.stringify(r)}\n`);
        await until('records published', 10_000, async () => (output().match(/published /g) ?? []).length >= before + records.length, 100);
      },
      close: () => child.stdin.end(),
    };
  }

  /**
   * A webhook receiver inside the gateway's container (the compose network reaches it as
   * gateway:9999): it answers 200 and writes each delivery (headers and body) as a JSON line.
   */
  async function startReceiver() {
    const script = `
    require('node:http').createServer((req, res) => {
      let body = '';
      req.setEncoding('utf8');
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        console.log(JSON.stringify({ at: Date.now(), headers: req.headers, body }));
        res.end('ok');
      });
    }).listen(${receiverPort}, '0.0.0.0', () => console.log('ready'));
    process.stdin.on('end', () => process.exit(0));
    process.stdin.resume();`;
    const { child, output } = await nodeInGateway(script, 'the webhook receiver');
    const exited = new Promise((resolve) => child.on('exit', resolve));
    return {
      deliveries: () =>
        output()
          .split('\n')
          .filter((line) => line.startsWith('{'))
          .map((line) => JSON.parse(line)),
      close: () => child.stdin.end(),
      exited,
    };
  }

  /** Starts the infrastructure (Kafka, the database, the sink), then, once healthy, the services. */
  async function up({ infraCheck, servicesCheck, serviceNames = services, timeoutMs = 300_000 }) {
    compose(['down', '-v', '-t', '5'], { quiet: true, allowFail: true }); // what an interrupted run left
    const tUp = Date.now();
    let upSeconds;
    // podman 4.3 cannot wait for `condition: service_healthy` (podman-compose skips it with a
    // warning), so the test does what Compose would: the infrastructure first, until its health
    // checks pass (kafka-1's: the whole cluster is there), then the services.
    const infra = [...brokers, 'mongo', 'mailpit'];
    await stream(priority[0], composeArgs(['up', '-d', '--no-build', ...infra]));
    const infraReady = await check(infraCheck, async () => {
      await waitHealthy(infra, timeoutMs);
      return `${Math.round((Date.now() - tUp) / 1000)} s after up`;
    });
    if (!infraReady) for (const s of infra) showLogs(s);
    await stream(priority[0], composeArgs(['up', '-d', '--no-build']));
    const ready = await check(servicesCheck, async () => {
      await waitHealthy(serviceNames, timeoutMs);
      upSeconds = Math.round((Date.now() - tUp) / 1000);
      return `${upSeconds} s after up`;
    });
    if (!ready) for (const s of serviceNames) showLogs(s);
    return { ready: infraReady && ready, upSeconds };
  }

  function down() {
    if (process.env.POSTBUS_KEEP_STACK === '1') say(`POSTBUS_KEEP_STACK=1: the stack ${project} keeps running`);
    else {
      say('tearing down (compose down -v)');
      compose(['down', '-v', '-t', '10'], { quiet: true, allowFail: true });
      rmSync(tlsDir, { recursive: true, force: true });
    }
  }

  /** A client made with the CLI in a container (compose run gateway … clients create --json). */
  function createClient(name) {
    const r = compose(
      [
        'run',
        '--rm',
        '--no-deps',
        '-T',
        'gateway',
        'node',
        'services/gateway/bin/postbus.js',
        'clients',
        'create',
        '--name',
        name,
        '--json',
      ],
      { quiet: true },
    );
    const line = r.stdout
      .split('\n')
      .reverse()
      .find((l) => l.trim().startsWith('{'));
    const client = JSON.parse(line ?? 'null');
    if (!client?.client_id || !client?.api_key) throw new Error(`no client in: ${r.stdout.slice(-500)}`);
    return client;
  }

  /**
   * A sender domain verified against the DNS server (its records published there), and a
   * project sending from it; returns the records and the project's id.
   */
  async function setupSender(auth, dns, domainName, projectName) {
    const domain = expectStatus(
      await http(gatewayUrl, 'POST', '/v1/sender-domains', { auth, json: { domain: domainName } }),
      201,
      'POST /v1/sender-domains',
    );
    const records = domain.records;
    await dns.publish(records.map((r) => ({ name: r.name, type: 'TXT', value: r.value })));
    const result = expectStatus(await http(gatewayUrl, 'POST', `/v1/sender-domains/${domain.id}/verify`, { auth }), 200, 'verify');
    if (result.status !== 'verified') throw new Error(`status ${result.status}: ${JSON.stringify(result).slice(0, 500)}`);
    const projectId = expectStatus(
      await http(gatewayUrl, 'POST', '/v1/projects', { auth, json: { name: projectName } }),
      201,
      'POST /v1/projects',
    ).id;
    const patched = await http(gatewayUrl, 'PATCH', `/v1/projects/${projectId}`, {
      auth,
      json: { sender_domain_id: domain.id, from_email: `hello@${domainName}`, from_name: `Postbus ${projectName.toLowerCase()}` },
    });
    if (patched.status >= 300) throw new Error(`PATCH project: ${patched.status} ${patched.text}`);
    return { records, projectId };
  }

  /** The `welcome` email of a project, on a template using {{user.name}} and {{data.code}}. */
  async function createWelcomeEmail(auth, projectId) {
    const p = `/v1/projects/${projectId}`;
    const template = expectStatus(
      await http(gatewayUrl, 'POST', `${p}/templates`, {
        auth,
        json: { name: 'Welcome', subject: 'Welcome, {{user.name}}', html: '<p>Your code is <b>{{data.code}}</b>.</p>' },
      }),
      201,
      'POST templates',
    );
    expectStatus(
      await http(gatewayUrl, 'POST', `${p}/emails`, { auth, json: { key: 'welcome', name: 'Welcome', template_id: template.id } }),
      201,
      'POST emails',
    );
  }

  /** The last line of a test: "N passed, N failed", and the exit code. */
  function finish() {
    const failed = results.filter((r) => !r.ok).length;
    console.log(`${results.length - failed} passed, ${failed} failed`);
    process.exitCode = failed > 0 ? 1 : 0;
  }

  /** What an exception out of main() ends with: it counts as one more failure. */
  function crashed(error) {
    say(`error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    const failed = results.filter((r) => !r.ok).length + 1;
    console.log(`${results.length - failed + 1} passed, ${failed} failed`);
    process.exitCode = 1;
  }

  return {
    project,
    brokers,
    env,
    priority,
    say,
    elapsed,
    run,
    stream,
    composeArgs,
    compose,
    container,
    results,
    check,
    healthy,
    waitHealthy,
    showLogs,
    nodeInGateway,
    startDns,
    startReceiver,
    up,
    down,
    createClient,
    setupSender,
    createWelcomeEmail,
    finish,
    crashed,
  };
}

export async function http(base, method, path, { auth, json, headers: extra, timeoutMs = 15_000 } = {}) {
  const headers = { accept: 'application/json', ...extra };
  if (auth) headers.authorization = `Basic ${Buffer.from(`${auth[0]}:${auth[1]}`).toString('base64')}`;
  if (json !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(`${base}${path}`, {
    method,
    headers,
    body: json === undefined ? undefined : JSON.stringify(json),
    signal: AbortSignal.timeout(timeoutMs),
  });
  const text = await res.text();
  let body;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  return { status: res.status, body, text, headers: res.headers };
}

export function expectStatus(res, status, what) {
  if (res.status !== status) throw new Error(`${what}: ${res.status} ${res.text.slice(0, 500)}`);
  return res.body;
}

export async function until(what, timeoutMs, fn, intervalMs = 2000) {
  const deadline = Date.now() + timeoutMs;
  let last;
  for (;;) {
    try {
      const value = await fn();
      if (value) return value;
    } catch (error) {
      last = error;
    }
    if (Date.now() > deadline)
      throw new Error(`${what}: not within ${timeoutMs / 1000} s${last ? ` (last: ${last.message ?? last})` : ''}`);
    await sleep(intervalMs);
  }
}

/** standardwebhooks (a dependency, present after npm ci) verifies a delivery's signature. */
export function verifyWebhook(delivery, secret) {
  const { Webhook } = requireHere('standardwebhooks');
  return new Webhook(secret).verify(delivery.body, delivery.headers);
}

/** mailauth (a devDependency, present after npm ci) checks the DKIM signature, with the published records as DNS. */
export async function dkimResult(raw, records) {
  let mailauth;
  try {
    mailauth = requireHere('mailauth');
  } catch {
    return undefined;
  }
  const resolver = async (name, type) => {
    const found = records.filter((r) => r.name.toLowerCase() === String(name).toLowerCase() && r.type === type);
    if (found.length === 0) throw Object.assign(new Error(`no ${type} at ${name}`), { code: 'ENOTFOUND' });
    return found.map((r) => (type === 'TXT' ? [r.value] : r.value));
  };
  const result = await mailauth.authenticate(Buffer.from(raw), {
    resolver,
    ip: '127.0.0.1',
    helo: 'localhost',
    sender: 'test@localhost',
    trustReceived: false,
  });
  return result.dkim?.results ?? [];
}
