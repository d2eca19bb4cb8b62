#!/usr/bin/env node
// npm run test:containers: the operator's path, run for real on podman.
//   1. deploy/containers/podman.sh images: installs podman and podman-compose if needed, builds
//      (or keeps, when their inputs are unchanged) the base, Node, stand-in and service images;
//   2. brings up docker-compose.yml itself with compose.podman.yml (the images that cannot be
//      pulled here and the host ports swapped), under its own project name;
//   3. starts Kafka, the database and the sink first, then the services, each time waiting for
//      the containers' own health checks (the services': /readyz): podman runs none by itself
//      without systemd, and podman-compose cannot wait for them on podman 4.3;
//   4. checks the cluster and a send end to end: the three brokers (one with
//      POSTBUS_TEST_BROKERS=1, which adds docker-compose.single-broker.yml), the topics' replication,
//      a client created with the CLI in a container, a trigger accepted, the mail at the sink,
//      the message's timeline, the admin panel and the status page;
//   5. tears everything down (volumes too), and ends with "N passed, N failed".
// POSTBUS_KEEP_STACK=1 leaves the stack running for a look (`bash deploy/containers/podman.sh
// compose -p postbus-ctest … down -v` removes it). Heavy commands run under nice/ionice.
/* global AbortSignal, Buffer, console, fetch, process, setTimeout -- a plain Node script, run without a build */
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..', '..');
const project = process.env.POSTBUS_TEST_PROJECT ?? 'postbus-ctest';
const gatewayUrl = 'http://127.0.0.1:18080';
const statusUrl = 'http://127.0.0.1:18090';
const sinkUrl = 'http://127.0.0.1:18025';
// POSTBUS_TEST_BROKERS=1 runs the single-broker variant (docker-compose.single-broker.yml on top).
const single = process.env.POSTBUS_TEST_BROKERS === '1';
const brokers = single ? ['kafka-1'] : ['kafka-1', 'kafka-2', 'kafka-3'];
const replicas = brokers.length;
const minInsync = Math.min(2, replicas);
const services = ['users', 'payments', 'erasure', 'mailer', 'webhook-dispatcher', 'gateway', 'status'];
const heavy = ['nice', '-n', '19', 'ionice', '-c3'];
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
// The webhook receiver runs in the gateway's container (startReceiver): a private address, which
// the dispatcher refuses unless the operator admits it, as docker-compose.yml lets one do.
const receiverPort = 9999;
env.POSTBUS_WEBHOOK_ALLOWED_HOSTS = `gateway:${receiverPort}`;

const say = (line) => console.log(`[test:containers] ${line}`);
const elapsed = () => `${Math.round((Date.now() - started) / 1000)} s`;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

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

/** podman-compose (podman.sh compose: the project's containers.conf) on docker-compose.yml and the override. */
const composeArgs = (args) => [
  ...heavy.slice(1),
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
  ...args,
];
const compose = (args, options) => run(heavy[0], composeArgs(args), options);
const container = (service) => `${project}_${service}_1`;

// ---------------------------------------------------------------------------------------------
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

async function http(base, method, path, { auth, json } = {}) {
  const headers = { accept: 'application/json' };
  if (auth) headers.authorization = `Basic ${Buffer.from(`${auth[0]}:${auth[1]}`).toString('base64')}`;
  if (json !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(`${base}${path}`, {
    method,
    headers,
    body: json === undefined ? undefined : JSON.stringify(json),
    signal: AbortSignal.timeout(15_000),
  });
  const text = await res.text();
  let body;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  return { status: res.status, body, text };
}

function expectStatus(res, status, what) {
  if (res.status !== status) throw new Error(`${what}: ${res.status} ${res.text.slice(0, 500)}`);
  return res.body;
}

async function until(what, timeoutMs, fn, intervalMs = 2000) {
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

function showLogs(service) {
  const r = run('podman', ['logs', '--tail', '40', container(service)], { quiet: true, allowFail: true });
  console.log(`----- ${service} (last 40 lines) -----\n${r.stdout}${r.stderr}`);
}

/**
 * The test's DNS server: libs/testing's, run with `podman exec` inside the gateway's container
 * (its network namespace: the gateway's DNS_SERVERS is 127.0.0.1:5353 in compose.podman.yml).
 * Records are published by writing {name, type, value} lines to its standard input.
 */
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
        console.log(JSON.stringify({ headers: req.headers, body }));
        res.end('ok');
      });
    }).listen(${receiverPort}, '0.0.0.0', () => console.log('ready'));
    process.stdin.on('end', () => process.exit(0));
    process.stdin.resume();`;
  const { child, output } = await nodeInGateway(script, 'the webhook receiver');
  return {
    deliveries: () =>
      output()
        .split('\n')
        .filter((line) => line.startsWith('{'))
        .map((line) => JSON.parse(line)),
    close: () => child.stdin.end(),
  };
}

/** standardwebhooks (a dependency, present after npm ci) verifies a delivery's signature. */
function verifyWebhook(delivery, secret) {
  const require = createRequire(join(root, 'package.json'));
  const { Webhook } = require('standardwebhooks');
  return new Webhook(secret).verify(delivery.body, delivery.headers);
}

/** mailauth (a devDependency, present after npm ci) checks the DKIM signature, with the published records as DNS. */
async function dkimResult(raw, records) {
  const require = createRequire(join(root, 'package.json'));
  let mailauth;
  try {
    mailauth = require('mailauth');
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

// ---------------------------------------------------------------------------------------------
async function main() {
  say('building images (deploy/containers/podman.sh images)');
  const tImages = Date.now();
  await stream('bash', [join(here, 'podman.sh'), 'images']);
  const imagesSeconds = Math.round((Date.now() - tImages) / 1000);

  say(`starting the stack (project ${project})`);
  compose(['down', '-v', '-t', '5'], { quiet: true, allowFail: true }); // what an interrupted run left
  const tUp = Date.now();
  let upSeconds;
  try {
    // podman 4.3 cannot wait for `condition: service_healthy` (podman-compose skips it with a
    // warning), so the test does what Compose would: the infrastructure first, until its health
    // checks pass (kafka-1's: the whole cluster is there), then the services.
    const infra = [...brokers, 'mongo', 'mailpit'];
    await stream(heavy[0], composeArgs(['up', '-d', '--no-build', ...infra]));
    const infraReady = await check('Kafka, the database and the mail sink pass their health checks', async () => {
      await waitHealthy(infra, 300_000);
      return `${Math.round((Date.now() - tUp) / 1000)} s after up`;
    });
    if (!infraReady) for (const s of infra) showLogs(s);
    await stream(heavy[0], composeArgs(['up', '-d', '--no-build']));
    const ready = await check("every service passes its health check (the service's own /readyz)", async () => {
      await waitHealthy(services, 300_000);
      upSeconds = Math.round((Date.now() - tUp) / 1000);
      return `${upSeconds} s after up`;
    });
    if (!ready) for (const s of services) showLogs(s);

    await check(`the Kafka cluster has ${replicas} broker(s), each healthy (a KRaft quorum of ${replicas})`, async () => {
      // Each broker, probed again: Compose calls a broker unhealthy only after 12 failed probes in
      // a row, and one probe (a JVM of its own) can run past its timeout on a loaded machine.
      await waitHealthy(brokers, 120_000);
      const out = run(
        'podman',
        [
          'exec',
          '-e',
          'KAFKA_HEAP_OPTS=-Xmx64m',
          container('kafka-1'),
          '/opt/kafka/bin/kafka-metadata-quorum.sh',
          '--bootstrap-server',
          'localhost:9092',
          'describe',
          '--status',
        ],
        { quiet: true },
      ).stdout;
      const voters = out.split('\n').find((l) => l.startsWith('CurrentVoters:')) ?? '';
      const count = (voters.match(/"id":\s*\d+/g) ?? []).length;
      if (count !== replicas) throw new Error(`quorum voters: ${voters || out}`);
      return `voters ${count}`;
    });

    await check(`the services' topics have ${replicas} replica(s) and min.insync.replicas=${minInsync}`, async () => {
      const out = run(
        'podman',
        [
          'exec',
          '-e',
          'KAFKA_HEAP_OPTS=-Xmx128m',
          container('kafka-1'),
          '/opt/kafka/bin/kafka-topics.sh',
          '--bootstrap-server',
          'localhost:9092',
          '--describe',
          '--exclude-internal',
        ],
        { quiet: true },
      ).stdout;
      const topics = out.split('\n').filter((l) => l.startsWith('Topic:') && l.includes('PartitionCount'));
      if (topics.length === 0) throw new Error('no topics');
      const wrong = topics.filter(
        (l) =>
          !new RegExp(`ReplicationFactor:\\s*${replicas}\\b`).test(l) || !new RegExp(`min\\.insync\\.replicas=${minInsync}\\b`).test(l),
      );
      if (wrong.length > 0) throw new Error(`${wrong.length} of ${topics.length} topics: ${wrong.slice(0, 3).join(' | ')}`);
      return `${topics.length} topics`;
    });

    let client;
    await check('a client is created with the CLI in a container (compose run gateway … clients create)', async () => {
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
          'Container test',
          '--json',
        ],
        { quiet: true },
      );
      const line = r.stdout
        .split('\n')
        .reverse()
        .find((l) => l.trim().startsWith('{'));
      client = JSON.parse(line ?? 'null');
      if (!client?.client_id || !client?.api_key) throw new Error(`no client in: ${r.stdout.slice(-500)}`);
      return client.client_id;
    });

    let projectId;
    let records = [];
    let dns;
    const domainName = 'ctest.postbus.test';
    const verified = await check("a sender domain is verified against the test's DNS server", async () => {
      if (!client) throw new Error('no client');
      const auth = [client.client_id, client.api_key];
      dns = await startDns();
      const domain = expectStatus(
        await http(gatewayUrl, 'POST', '/v1/sender-domains', { auth, json: { domain: domainName } }),
        201,
        'POST /v1/sender-domains',
      );
      records = domain.records;
      await dns.publish(records.map((r) => ({ name: r.name, type: 'TXT', value: r.value })));
      const result = expectStatus(await http(gatewayUrl, 'POST', `/v1/sender-domains/${domain.id}/verify`, { auth }), 200, 'verify');
      if (result.status !== 'verified') throw new Error(`status ${result.status}: ${JSON.stringify(result).slice(0, 500)}`);
      projectId = expectStatus(
        await http(gatewayUrl, 'POST', '/v1/projects', { auth, json: { name: 'Container test' } }),
        201,
        'POST /v1/projects',
      ).id;
      const patched = await http(gatewayUrl, 'PATCH', `/v1/projects/${projectId}`, {
        auth,
        json: { sender_domain_id: domain.id, from_email: `hello@${domainName}`, from_name: 'Postbus container test' },
      });
      if (patched.status >= 300) throw new Error(`PATCH project: ${patched.status} ${patched.text}`);
      return `${records.length} records`;
    });

    let receiver;
    let endpoint;
    await check('a webhook endpoint is created for a receiver on the compose network', async () => {
      receiver = await startReceiver();
      endpoint = expectStatus(
        await http(gatewayUrl, 'POST', '/v1/webhooks', {
          auth: [client.client_id, client.api_key],
          json: { url: `http://gateway:${receiverPort}/hooks/postbus`, events: ['message.sent'] },
        }),
        201,
        'POST webhooks',
      );
      return endpoint.id;
    });

    let accepted;
    const to = `ada+${Date.now()}@example.com`;
    const sent = await check('a trigger is accepted (template, email, send)', async () => {
      if (!verified) throw new Error('no verified sender domain');
      const auth = [client.client_id, client.api_key];
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
      const send = await http(gatewayUrl, 'POST', `${p}/emails/welcome/send`, {
        auth,
        json: { user: { email: to, name: 'Ada' }, data: { code: '4711' } },
      });
      if (send.status !== 200 && send.status !== 202) throw new Error(`send: ${send.status} ${send.text}`);
      accepted = send.body;
      return `${send.status} ${accepted?.message_id ?? ''}`;
    });

    let mail;
    await check('the mail reaches the sink (the mailer → SMTP → services/smtp-sink in place of Mailpit)', async () => {
      if (!sent) throw new Error('nothing was sent');
      const found = await until('the mail at the sink', 90_000, async () => {
        const r = await http(sinkUrl, 'GET', `/api/v1/search?query=${encodeURIComponent(`to:${to}`)}`);
        return r.status === 200 && r.body?.messages?.length > 0 ? r.body.messages[0] : undefined;
      });
      const message = expectStatus(await http(sinkUrl, 'GET', `/api/v1/message/${found.ID}`), 200, 'GET message');
      if (!/Welcome, Ada/.test(message.Subject)) throw new Error(`subject: ${message.Subject}`);
      if (!/4711/.test(message.HTML ?? '')) throw new Error('the rendered body lacks the data');
      mail = { id: found.ID, from: message.From?.Address };
      return `"${message.Subject}" from ${message.From?.Address}`;
    });

    await check(`the mail carries a valid DKIM signature of ${domainName}`, async () => {
      if (!mail) throw new Error('no mail');
      const raw = await (await fetch(`${sinkUrl}/api/v1/message/${mail.id}/raw`)).text();
      const results = await dkimResult(raw, records);
      if (results === undefined) throw new Error('mailauth is not installed (npm ci)');
      const pass = results.find((r) => r.status?.result === 'pass' && r.signingDomain === domainName);
      if (!pass) throw new Error(`DKIM: ${JSON.stringify(results.map((r) => [r.signingDomain, r.status])).slice(0, 500)}`);
      return `selector ${pass.selector}`;
    });

    await check('the message reads back as sent, with its timeline (by recipient and by id)', async () => {
      if (!sent) throw new Error('nothing was sent');
      const auth = [client.client_id, client.api_key];
      const listed = await until('message sent', 60_000, async () => {
        const r = await http(gatewayUrl, 'GET', `/v1/projects/${projectId}/messages?email=${encodeURIComponent(to)}`, { auth });
        const item = r.body?.data?.[0];
        return item && item.status === 'sent' ? item : undefined;
      });
      if (listed.id !== accepted?.message_id) throw new Error(`listed ${listed.id}, accepted ${accepted?.message_id}`);
      const one = expectStatus(
        await http(gatewayUrl, 'GET', `/v1/projects/${projectId}/messages/${listed.id}`, { auth }),
        200,
        'GET message',
      );
      const events = (one.timeline ?? []).map((e) => e.event);
      if (!events.includes('sent')) throw new Error(`timeline: ${events.join(', ')}`);
      return `${one.status}; timeline ${events.join(' → ')}`;
    });

    await check("the recipient's profile reads back (registered by the users service from the trigger)", async () => {
      if (!sent) throw new Error('nothing was sent');
      const auth = [client.client_id, client.api_key];
      const profile = await until('the profile', 60_000, async () => {
        const r = await http(gatewayUrl, 'GET', `/v1/projects/${projectId}/users?email=${encodeURIComponent(to)}`, { auth });
        return r.status === 200 ? r.body : undefined;
      });
      if (profile.email !== to || profile.name !== 'Ada') throw new Error(`profile: ${JSON.stringify(profile).slice(0, 300)}`);
      return profile.id;
    });

    await check('a signed message.sent webhook reaches the receiver and verifies (Standard Webhooks)', async () => {
      if (!sent || !endpoint) throw new Error('no message or no endpoint');
      const delivery = await until('the webhook at the receiver', 90_000, async () =>
        receiver.deliveries().find((d) => JSON.parse(d.body).data?.message_id === accepted?.message_id),
      );
      const event = verifyWebhook(delivery, endpoint.secret);
      if (event.type !== 'message.sent') throw new Error(`type ${event.type}`);
      return `${event.type}, webhook-id ${delivery.headers['webhook-id']}`;
    });
    receiver?.close();

    await check('the admin panel answers at /admin/', async () => {
      const res = await fetch(`${gatewayUrl}/admin/`, { signal: AbortSignal.timeout(10_000) });
      const text = await res.text();
      if (res.status !== 200 || !/<html/i.test(text)) throw new Error(`${res.status} ${text.slice(0, 200)}`);
    });

    await check('the status page answers', async () => {
      const res = await fetch(`${statusUrl}/`, { signal: AbortSignal.timeout(10_000) });
      if (res.status !== 200) throw new Error(`${res.status}`);
    });
    dns?.close();
  } finally {
    if (results.some((r) => !r.ok)) for (const s of ['mailer', 'gateway']) showLogs(s);
    if (process.env.POSTBUS_KEEP_STACK === '1') say(`POSTBUS_KEEP_STACK=1: the stack ${project} keeps running`);
    else {
      say('tearing down (compose down -v)');
      compose(['down', '-v', '-t', '10'], { quiet: true, allowFail: true });
    }
  }
  const failed = results.filter((r) => !r.ok).length;
  say(`images ${imagesSeconds} s, stack ready ${upSeconds ?? '-'} s, total ${elapsed()}`);
  console.log(`${results.length - failed} passed, ${failed} failed`);
  process.exitCode = failed > 0 ? 1 : 0;
}

main().catch((error) => {
  say(`error: ${error instanceof Error ? error.message : String(error)}`);
  const failed = results.filter((r) => !r.ok).length + 1;
  console.log(`${results.length - failed + 1} passed, ${failed} failed`);
  process.exitCode = 1;
});
