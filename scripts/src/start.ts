import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  basicAuth,
  call,
  ensureInfrastructure,
  portOpen,
  stopInfrastructure,
  repoRoot,
  startDnsServer,
  startService,
  type LocalDnsServer,
  type ServiceProcess,
} from '@postbus/testing';

/**
 * `npm start`: the whole system on this machine — local infrastructure, a local DNS server, every
 * service, a demo client, project and verified sender domain — and a ready-to-paste curl command.
 * Ctrl-C stops what it started.
 */

const GATEWAY_PORT = Number(process.env['PORT'] ?? 8080);
const USERS_PORT = Number(process.env['USERS_PORT'] ?? 8081);
const MAILER_PORT = Number(process.env['MAILER_PORT'] ?? 8082);
const WEBHOOKS_PORT = Number(process.env['WEBHOOKS_PORT'] ?? 8083);
const PAYMENTS_PORT = Number(process.env['PAYMENTS_PORT'] ?? 8084);
const ERASURE_PORT = Number(process.env['ERASURE_PORT'] ?? 8085);
const SINK_HTTP_PORT = Number(process.env['SINK_HTTP_PORT'] ?? 8025);
const SINK_SMTP_PORT = Number(process.env['SINK_SMTP_PORT'] ?? 1025);
const demoFile = join(repoRoot, '.data', 'demo-client.json');
const secretsFile = join(repoRoot, '.data', 'secrets.json');
const DEMO_DOMAIN = 'demo.postbus.test';
const SPF_INCLUDE = 'spf.postbus.test';

interface LocalSecrets {
  SECRETS_KEY: string;
  SESSION_SECRET: string;
  ERASURE_AUDIT_KEY: string;
  TRACKING_SECRET: string;
}

/** This installation's secrets, made on the first start and kept in .data/ (never in the repository). */
function localSecrets(): LocalSecrets {
  const saved = existsSync(secretsFile) ? (JSON.parse(readFileSync(secretsFile, 'utf8')) as Partial<LocalSecrets>) : {};
  const secrets: LocalSecrets = {
    SECRETS_KEY: saved.SECRETS_KEY ?? randomBytes(32).toString('base64'),
    SESSION_SECRET: saved.SESSION_SECRET ?? randomBytes(48).toString('base64url'),
    TRACKING_SECRET: saved.TRACKING_SECRET ?? randomBytes(48).toString('base64url'),
    ERASURE_AUDIT_KEY: saved.ERASURE_AUDIT_KEY ?? randomBytes(48).toString('base64url'),
  };
  mkdirSync(join(repoRoot, '.data'), { recursive: true });
  writeFileSync(secretsFile, JSON.stringify(secrets, null, 2), { mode: 0o600 });
  return secrets;
}

/** The demo sender domain, its records published in the local DNS server and verified. */
async function demoSenderDomain(gatewayUrl: string, demo: Demo, dns: LocalDnsServer): Promise<{ id: string; status: string }> {
  const auth = basicAuth(demo.clientId, demo.apiKey);
  const list = await call(gatewayUrl, 'GET', '/v1/sender-domains', { auth });
  let domain = (list.body?.data as { id: string; domain: string; records: { name: string; value: string }[] }[] | undefined)?.find(
    (d) => d.domain === DEMO_DOMAIN,
  );
  if (!domain) {
    const created = await call(gatewayUrl, 'POST', '/v1/sender-domains', { auth, json: { domain: DEMO_DOMAIN } });
    if (created.status !== 201) throw new Error(`creating the demo sender domain failed: ${created.status} ${created.text}`);
    domain = created.body;
  }
  for (const record of domain!.records) dns.publish(record.name, 'TXT', [record.value]);
  const verified = await call(gatewayUrl, 'POST', `/v1/sender-domains/${domain!.id}/verify`, { auth });
  return { id: domain!.id, status: String(verified.body?.status) };
}

/** The demo project sends from the demo domain; a `welcome` email and its template are ready to trigger. */
async function demoWelcomeEmail(gatewayUrl: string, demo: Demo, senderDomainId: string): Promise<void> {
  const auth = basicAuth(demo.clientId, demo.apiKey);
  const p = `/v1/projects/${demo.projectId}`;
  await call(gatewayUrl, 'PATCH', p, {
    auth,
    json: { sender_domain_id: senderDomainId, from_email: `hello@${DEMO_DOMAIN}`, from_name: 'Postbus Demo' },
  });
  if ((await call(gatewayUrl, 'GET', `${p}/emails/welcome`, { auth })).status === 200) return;
  const template = await call(gatewayUrl, 'POST', `${p}/templates`, {
    auth,
    json: {
      name: 'Welcome',
      subject: 'Welcome to Postbus, {{user.name}}',
      html: '<h1>Hello {{user.name}}!</h1><p>Your code is <b>{{data.code}}</b>.</p><p><a href="https://example.com/start">Get started</a></p>',
    },
  });
  if (template.status !== 201) throw new Error(`creating the demo template failed: ${template.status} ${template.text}`);
  const email = await call(gatewayUrl, 'POST', `${p}/emails`, {
    auth,
    json: { key: 'welcome', name: 'Welcome', template_id: template.body.id },
  });
  if (email.status !== 201) throw new Error(`creating the demo email failed: ${email.status} ${email.text}`);
}

interface Demo {
  clientId: string;
  apiKey: string;
  projectId: string;
}

const say = (line: string) => console.log(`[postbus] ${line}`);

async function demoClient(gatewayUrl: string): Promise<Demo> {
  if (existsSync(demoFile)) {
    const saved = JSON.parse(readFileSync(demoFile, 'utf8')) as Demo;
    const check = await call(gatewayUrl, 'GET', `/v1/projects/${saved.projectId}`, { auth: basicAuth(saved.clientId, saved.apiKey) });
    if (check.status === 200) return saved;
  }
  say('creating the demo client (npx postbus clients create --name Demo)');
  const out = execFileSync(
    process.execPath,
    [join(repoRoot, 'services/gateway/bin/postbus.js'), 'clients', 'create', '--name', 'Demo', '--json'],
    { encoding: 'utf8' },
  );
  const { client_id: clientId, api_key: apiKey } = JSON.parse(out) as { client_id: string; api_key: string };
  const project = await call(gatewayUrl, 'POST', '/v1/projects', { auth: basicAuth(clientId, apiKey), json: { name: 'Demo project' } });
  if (project.status !== 201) throw new Error(`creating the demo project failed: ${project.status} ${project.text}`);
  const demo = { clientId, apiKey, projectId: project.body.id as string };
  writeFileSync(demoFile, JSON.stringify(demo, null, 2), { mode: 0o600 });
  return demo;
}

async function main(): Promise<void> {
  for (const [name, port] of [
    ['gateway', GATEWAY_PORT],
    ['users', USERS_PORT],
    ['mailer', MAILER_PORT],
    ['webhook dispatcher', WEBHOOKS_PORT],
    ['payments', PAYMENTS_PORT],
    ['erasure', ERASURE_PORT],
    ['SMTP sink (HTTP)', SINK_HTTP_PORT],
    ['SMTP sink (SMTP)', SINK_SMTP_PORT],
  ] as const) {
    if (await portOpen('127.0.0.1', port))
      throw new Error(
        `port ${port} (${name}) is taken: is Postbus already running? Set PORT / USERS_PORT / MAILER_PORT / WEBHOOKS_PORT / PAYMENTS_PORT / ERASURE_PORT / SINK_HTTP_PORT / SINK_SMTP_PORT to use others.`,
      );
  }
  say(
    'starting local infrastructure (Kafka 3.9 KRaft, FerretDB 1.24); the first run downloads and builds, later runs reuse ~/.cache/postbus',
  );
  const startedInfrastructure = await ensureInfrastructure();

  const services: ServiceProcess[] = [];
  let stopping = false;
  const stopAll = async (code: number) => {
    if (stopping) return;
    stopping = true;
    say('stopping services');
    await Promise.all(services.map((s) => s.stop()));
    if (startedInfrastructure) stopInfrastructure();
    process.exit(code);
  };
  process.on('SIGINT', () => void stopAll(0));
  process.on('SIGTERM', () => void stopAll(0));

  try {
    const dns = await startDnsServer();
    say(`local DNS server on ${dns.address} (domain verification)`);
    say('starting the SMTP sink (where mail goes in development)');
    services.push(await startService('smtp-sink', SINK_HTTP_PORT, { SMTP_PORT: String(SINK_SMTP_PORT) }));
    const env = {
      USERS_URL: `http://127.0.0.1:${USERS_PORT}`,
      MAILER_URL: `http://127.0.0.1:${MAILER_PORT}`,
      WEBHOOKS_URL: `http://127.0.0.1:${WEBHOOKS_PORT}`,
      PAYMENTS_URL: `http://127.0.0.1:${PAYMENTS_PORT}`,
      ERASURE_URL: `http://127.0.0.1:${ERASURE_PORT}`,
      // Development: webhook receivers on this machine are allowed.
      WEBHOOK_ALLOWED_HOSTS: '127.0.0.1,localhost',
      SMTP_URL: `smtp://127.0.0.1:${SINK_SMTP_PORT}`,
      PUBLIC_BASE_URL: `http://localhost:${GATEWAY_PORT}`,
      DNS_SERVERS: dns.address,
      SPF_INCLUDE,
      ...localSecrets(),
    };
    say('starting users service, mailer, webhook dispatcher, payments and erasure services');
    services.push(
      ...(await Promise.all([
        startService('users', USERS_PORT, env),
        startService('mailer', MAILER_PORT, env),
        startService('webhook-dispatcher', WEBHOOKS_PORT, env),
        startService('payments', PAYMENTS_PORT, env),
        startService('erasure', ERASURE_PORT, env),
      ])),
    );
    say('starting gateway');
    const gateway = await startService('gateway', GATEWAY_PORT, env);
    services.push(gateway);
    for (const s of services) {
      s.child.once('exit', (code, signal) => {
        if (!stopping) {
          say(`${s.name} exited (${code ?? signal}); see .data/logs/${s.name}.log`);
          void stopAll(1);
        }
      });
    }
    const demo = await demoClient(gateway.url);
    const senderDomain = await demoSenderDomain(gateway.url, demo, dns);
    await demoWelcomeEmail(gateway.url, demo, senderDomain.id);
    const url = `http://localhost:${GATEWAY_PORT}`;
    console.log(`
Postbus is running.

  Gateway      ${url}
  API docs     ${url}/docs   (OpenAPI: ${url}/v1/openapi.json)
  Health       ${url}/readyz · metrics ${url}/metrics
  Mail sink    http://localhost:${SINK_HTTP_PORT}/api/v1/messages   (SMTP on 127.0.0.1:${SINK_SMTP_PORT}; Mailpit's API)
  Logs         .data/logs/{gateway,users,mailer,webhook-dispatcher,payments,erasure,smtp-sink}.log

Demo client (kept in .data/demo-client.json):
  client id    ${demo.clientId}
  api key      ${demo.apiKey}
  project id   ${demo.projectId}
  sender domain ${DEMO_DOMAIN} (${senderDomain.status}), its records served by the local DNS server
  email        welcome (template "Welcome to Postbus, {{user.name}}")

Try it:
  curl -u ${demo.clientId}:${demo.apiKey} -H 'Content-Type: application/json' \\
    -d '{"user":{"email":"ada@example.com","name":"Ada"},"data":{"code":"4711"}}' \\
    ${url}/v1/projects/${demo.projectId}/emails/welcome/send

  curl -u ${demo.clientId}:${demo.apiKey} '${url}/v1/projects/${demo.projectId}/messages?email=ada@example.com'
  curl http://localhost:${SINK_HTTP_PORT}/api/v1/messages

  curl -u ${demo.clientId}:${demo.apiKey} -H 'Content-Type: application/json' \\
    -d '{"email":"ada@example.com","user_id":"ada-1","fields":{"name":"Ada","plan":"pro"}}' \\
    ${url}/v1/projects/${demo.projectId}/users

  curl -u ${demo.clientId}:${demo.apiKey} '${url}/v1/projects/${demo.projectId}/users?email=ada@example.com'

  # GDPR: no more mail at once, erased everywhere after ERASURE_DELAY (2 days; e.g. ERASURE_DELAY=PT1M npm start)
  curl -u ${demo.clientId}:${demo.apiKey} -H 'Content-Type: application/json' \\
    -d '{"email":"ada@example.com"}' ${url}/v1/projects/${demo.projectId}/users/erase
  curl -u ${demo.clientId}:${demo.apiKey} '${url}/v1/erasures'

Press Ctrl-C to stop.`);
  } catch (error) {
    console.error(`[postbus] start failed: ${error instanceof Error ? error.message : String(error)}`);
    await stopAll(1);
  }
}

void main();
