import { execFileSync } from 'node:child_process';
import { randomBytes, X509Certificate } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseEnv } from 'node:util';
import { selfSignedCertificate } from '@postbus/smtp';
import {
  basicAuth,
  call,
  dataDir,
  defaultKafkaBrokers,
  defaultMongoUrl,
  ensureInfrastructure,
  portOpen,
  stopInfrastructure,
  repoRoot,
  startDnsServer,
  startService,
  systemEnv,
  type LocalDnsServer,
  type RecordType,
  type ServiceProcess,
} from '@postbus/testing';

/**
 * `npm start`: the whole system on this machine — local infrastructure, a local DNS server, every
 * service, a demo client, project and verified sender domain — and a ready-to-paste curl command.
 * Every setting comes from the environment (and from .env); the local parts stand in only for what
 * is unset: no KAFKA_BROKERS / MONGO_URL → local Kafka / FerretDB, no SMTP_URL → the SMTP sink, no
 * DNS_SERVERS → a local DNS server. Ctrl-C stops what it started.
 */

/** .env in the repository root, for what the environment does not set already. */
function loadDotEnv(): void {
  const file = join(repoRoot, '.env');
  if (!existsSync(file)) return;
  for (const [name, value] of Object.entries(parseEnv(readFileSync(file, 'utf8')))) {
    if (process.env[name] === undefined) process.env[name] = value;
  }
}
loadDotEnv();

/** The environment's value when set (and not empty), else the local default. */
const setting = (name: string, localDefault: string): string => process.env[name] || localDefault;

const GATEWAY_PORT = Number(process.env['PORT'] ?? 8080);
const USERS_PORT = Number(process.env['USERS_PORT'] ?? 8081);
const MAILER_PORT = Number(process.env['MAILER_PORT'] ?? 8082);
const WEBHOOKS_PORT = Number(process.env['WEBHOOKS_PORT'] ?? 8083);
const PAYMENTS_PORT = Number(process.env['PAYMENTS_PORT'] ?? 8084);
const ERASURE_PORT = Number(process.env['ERASURE_PORT'] ?? 8085);
const GATEWAY_INTERNAL_PORT = Number(process.env['INTERNAL_PORT'] ?? 8086);
const STATUS_PORT = Number(process.env['STATUS_PORT'] ?? 8090);
const INBOUND_PORT = Number(process.env['INBOUND_PORT'] ?? 8087);
const INBOUND_SMTP_PORT = Number(process.env['INBOUND_SMTP_PORT'] ?? 2525);
// SMTP submission's own variables name its SMTP ports; its internal server (health, metrics) has one of npm start's.
const SUBMISSION_INTERNAL_PORT = Number(process.env['SUBMISSION_INTERNAL_PORT'] ?? 8088);
const SUBMISSION_PORT = Number(process.env['SUBMISSION_PORT'] ?? 2587);
const SUBMISSION_TLS_PORT = Number(process.env['SUBMISSION_TLS_PORT'] ?? 2465);
const SINK_HTTP_PORT = Number(process.env['SINK_HTTP_PORT'] ?? 8025);
const SINK_SMTP_PORT = Number(process.env['SINK_SMTP_PORT'] ?? 1025);
const demoFile = join(dataDir(), 'demo-client.json');
const secretsFile = join(dataDir(), 'secrets.json');
const DEMO_DOMAIN = 'demo.postbus.test';
const submissionTlsDir = join(dataDir(), 'submission-tls');

interface LocalSecrets {
  SECRETS_KEY: string;
  SESSION_SECRET: string;
  ERASURE_AUDIT_KEY: string;
  TRACKING_SECRET: string;
  INTERNAL_API_SECRET: string;
  STATUS_OPERATOR_TOKEN: string;
  STATUS_SUBSCRIPTION_SECRET: string;
  STATUS_SECRETS_KEY: string;
}

/**
 * This installation's secrets, made on the first start and kept in .data/ (never in the
 * repository); the environment's win where set. One INTERNAL_API_SECRET for every service: the
 * gateway's tokens must be accepted by the others.
 */
function localSecrets(): LocalSecrets {
  const saved = existsSync(secretsFile) ? (JSON.parse(readFileSync(secretsFile, 'utf8')) as Partial<LocalSecrets>) : {};
  const made: LocalSecrets = {
    SECRETS_KEY: saved.SECRETS_KEY ?? randomBytes(32).toString('base64'),
    SESSION_SECRET: saved.SESSION_SECRET ?? randomBytes(48).toString('base64url'),
    TRACKING_SECRET: saved.TRACKING_SECRET ?? randomBytes(48).toString('base64url'),
    ERASURE_AUDIT_KEY: saved.ERASURE_AUDIT_KEY ?? randomBytes(48).toString('base64url'),
    INTERNAL_API_SECRET: saved.INTERNAL_API_SECRET ?? randomBytes(48).toString('base64url'),
    STATUS_OPERATOR_TOKEN: saved.STATUS_OPERATOR_TOKEN ?? randomBytes(32).toString('base64url'),
    STATUS_SUBSCRIPTION_SECRET: saved.STATUS_SUBSCRIPTION_SECRET ?? randomBytes(32).toString('base64url'),
    STATUS_SECRETS_KEY: saved.STATUS_SECRETS_KEY ?? randomBytes(32).toString('base64'),
  };
  mkdirSync(dataDir(), { recursive: true });
  writeFileSync(secretsFile, JSON.stringify(made, null, 2), { mode: 0o600 });
  return made;
}

/**
 * The certificate SMTP submission offers: the environment's (SUBMISSION_TLS_KEY_FILE and
 * SUBMISSION_TLS_CERT_FILE), or a self-signed one for localhost made on the first start and kept
 * in .data/submission-tls/ (made again once it has less than a month left), so that a client told
 * to trust it keeps trusting it from one start to the next.
 */
async function submissionCertificate(): Promise<{ keyFile: string; certFile: string; selfSigned: boolean }> {
  const given = { keyFile: process.env['SUBMISSION_TLS_KEY_FILE'] ?? '', certFile: process.env['SUBMISSION_TLS_CERT_FILE'] ?? '' };
  if (given.keyFile && given.certFile) return { ...given, selfSigned: false };
  const keyFile = join(submissionTlsDir, 'key.pem');
  const certFile = join(submissionTlsDir, 'cert.pem');
  const monthAhead = Date.now() + 30 * 24 * 60 * 60 * 1000;
  const valid =
    existsSync(keyFile) && existsSync(certFile) && new Date(new X509Certificate(readFileSync(certFile)).validTo).getTime() > monthAhead;
  if (!valid) {
    const { key, cert } = await selfSignedCertificate('localhost');
    mkdirSync(submissionTlsDir, { recursive: true });
    writeFileSync(keyFile, key, { mode: 0o600 });
    writeFileSync(certFile, cert);
  }
  return { keyFile, certFile, selfSigned: true };
}

interface DemoDomain {
  id: string;
  status: string;
  records: { name: string; type: string; value: string }[];
}

/**
 * The demo sender domain, verified: with the local DNS server its records are published there
 * first; with the user's DNS_SERVERS they must be published there (until then it stays pending).
 */
async function demoSenderDomain(gatewayUrl: string, demo: Demo, dns: LocalDnsServer | undefined): Promise<DemoDomain> {
  const auth = basicAuth(demo.clientId, demo.apiKey);
  const list = await call(gatewayUrl, 'GET', '/v1/sender-domains', { auth });
  let domain = (list.body?.data as (DemoDomain & { domain: string })[] | undefined)?.find((d) => d.domain === DEMO_DOMAIN);
  if (!domain) {
    const created = await call(gatewayUrl, 'POST', '/v1/sender-domains', { auth, json: { domain: DEMO_DOMAIN } });
    if (created.status !== 201) throw new Error(`creating the demo sender domain failed: ${created.status} ${created.text}`);
    domain = created.body;
  }
  const publish = (records: DemoDomain['records']) => {
    for (const record of records) dns?.publish(record.name, record.type as RecordType, [record.value]);
  };
  publish(domain!.records);
  let verified = await call(gatewayUrl, 'POST', `/v1/sender-domains/${domain!.id}/verify`, { auth });
  // A demo domain kept from an earlier version gains records at its verify (the return path's): published, and checked again.
  const records = (verified.body?.records as DemoDomain['records'] | undefined) ?? domain!.records;
  if (dns && records.length > domain!.records.length) {
    publish(records);
    verified = await call(gatewayUrl, 'POST', `/v1/sender-domains/${domain!.id}/verify`, { auth });
  }
  return { id: domain!.id, status: String(verified.body?.status ?? 'pending'), records };
}

/** The demo project sends from the demo domain; a `welcome` email and its template are ready to trigger. */
async function demoWelcomeEmail(gatewayUrl: string, demo: Demo, senderDomain: DemoDomain): Promise<void> {
  const auth = basicAuth(demo.clientId, demo.apiKey);
  const p = `/v1/projects/${demo.projectId}`;
  // A from_email is accepted only on a verified sender domain; until then the mailer uses no-reply@ the domain.
  const verified = senderDomain.status === 'verified';
  await call(gatewayUrl, 'PATCH', p, {
    auth,
    json: { sender_domain_id: senderDomain.id, ...(verified ? { from_email: `hello@${DEMO_DOMAIN}` } : {}), from_name: 'Postbus Demo' },
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

/** A URL as it may be printed: without its password. */
function redactUrl(value: string): string {
  try {
    const url = new URL(value);
    if (url.password) url.password = '***';
    return url.toString();
  } catch {
    return value;
  }
}

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
  const smtpGiven = Boolean(process.env['SMTP_URL']);
  const dnsGiven = Boolean(process.env['DNS_SERVERS']);
  for (const [name, port] of [
    ['gateway', GATEWAY_PORT],
    ['users', USERS_PORT],
    ['mailer', MAILER_PORT],
    ['webhook dispatcher', WEBHOOKS_PORT],
    ['payments', PAYMENTS_PORT],
    ['erasure', ERASURE_PORT],
    ['gateway (internal: /metrics)', GATEWAY_INTERNAL_PORT],
    ['status', STATUS_PORT],
    ['inbound MX (internal)', INBOUND_PORT],
    ['inbound MX (SMTP)', INBOUND_SMTP_PORT],
    ['SMTP submission (internal)', SUBMISSION_INTERNAL_PORT],
    ['SMTP submission (STARTTLS)', SUBMISSION_PORT],
    ['SMTP submission (implicit TLS)', SUBMISSION_TLS_PORT],
    ...(smtpGiven
      ? []
      : ([
          ['SMTP sink (HTTP)', SINK_HTTP_PORT],
          ['SMTP sink (SMTP)', SINK_SMTP_PORT],
        ] as const)),
  ] as const) {
    if (await portOpen('127.0.0.1', port))
      throw new Error(
        `port ${port} (${name}) is taken: is Postbus already running? Set PORT / USERS_PORT / MAILER_PORT / WEBHOOKS_PORT / PAYMENTS_PORT / ERASURE_PORT / INTERNAL_PORT / STATUS_PORT / INBOUND_PORT / INBOUND_SMTP_PORT / SUBMISSION_INTERNAL_PORT / SUBMISSION_PORT / SUBMISSION_TLS_PORT / SINK_HTTP_PORT / SINK_SMTP_PORT to use others.`,
      );
  }
  say(
    `broker ${defaultKafkaBrokers()}${process.env['KAFKA_BROKERS'] ? '' : ' (local Kafka 3.9)'} · database ${defaultMongoUrl()}${process.env['MONGO_URL'] ? '' : ' (local FerretDB 1.24)'}`,
  );
  if (!process.env['KAFKA_BROKERS'] || !process.env['MONGO_URL'])
    say('starting what is missing of the local infrastructure; the first run downloads and builds, later runs reuse ~/.cache/postbus');
  const startedInfrastructure = await ensureInfrastructure({ ownerPid: process.pid });

  const services: ServiceProcess[] = [];
  let dns: LocalDnsServer | undefined;
  let stopping = false;
  const stopAll = async (code: number) => {
    if (stopping) return;
    stopping = true;
    say('stopping services');
    await Promise.all(services.map((s) => s.stop()));
    await dns?.close();
    stopInfrastructure(startedInfrastructure);
    process.exit(code);
  };
  process.on('SIGINT', () => void stopAll(0));
  process.on('SIGTERM', () => void stopAll(0));
  process.on('SIGHUP', () => void stopAll(0));

  try {
    if (!dnsGiven) {
      dns = await startDnsServer();
      say(`DNS servers for domain verification: ${dns.address} (a local DNS server serving the demo domain's records)`);
    } else say(`DNS servers for domain verification: ${process.env['DNS_SERVERS']}`);
    if (!smtpGiven) {
      say(`relay smtp://127.0.0.1:${SINK_SMTP_PORT} (the local SMTP sink: mail stays on this machine)`);
      services.push(await startService('smtp-sink', SINK_HTTP_PORT, { SMTP_PORT: String(SINK_SMTP_PORT) }));
    } else say(`relay ${redactUrl(process.env['SMTP_URL']!)}`);
    // The environment (and .env) wins over each of these; webhook receivers on this machine go to ports 9000-9099 only.
    const env = systemEnv({
      ports: {
        gateway: GATEWAY_PORT,
        users: USERS_PORT,
        mailer: MAILER_PORT,
        'webhook-dispatcher': WEBHOOKS_PORT,
        payments: PAYMENTS_PORT,
        erasure: ERASURE_PORT,
        status: STATUS_PORT,
        inbound: INBOUND_PORT,
      },
      publicHost: 'localhost',
      internalPort: GATEWAY_INTERNAL_PORT,
      smtpUrl: `smtp://127.0.0.1:${SINK_SMTP_PORT}`,
      dnsServers: dns?.address ?? '',
      secrets: { ...localSecrets() },
      given: process.env,
    });
    say(`public URL ${env['PUBLIC_BASE_URL']} (tracking and unsubscribe links)`);
    say('starting users service, mailer, webhook dispatcher, payments and erasure services, and the inbound MX');
    services.push(
      ...(await Promise.all([
        startService('users', USERS_PORT, env),
        startService('mailer', MAILER_PORT, env),
        startService('webhook-dispatcher', WEBHOOKS_PORT, env),
        startService('payments', PAYMENTS_PORT, env),
        startService('erasure', ERASURE_PORT, env),
        startService('inbound', INBOUND_PORT, { ...env, INBOUND_SMTP_PORT: String(INBOUND_SMTP_PORT) }),
      ])),
    );
    say('starting gateway');
    const gateway = await startService('gateway', GATEWAY_PORT, env);
    services.push(gateway);
    // SMTP submission hands every message to the gateway's API: started once the gateway answers.
    const tls = await submissionCertificate();
    say(`starting SMTP submission${tls.selfSigned ? ` (a self-signed certificate for localhost, kept in ${submissionTlsDir})` : ''}`);
    services.push(
      await startService('submission', SUBMISSION_INTERNAL_PORT, {
        ...env,
        SUBMISSION_PORT: String(SUBMISSION_PORT),
        SUBMISSION_TLS_PORT: String(SUBMISSION_TLS_PORT),
        SUBMISSION_TLS_KEY_FILE: tls.keyFile,
        SUBMISSION_TLS_CERT_FILE: tls.certFile,
      }),
    );
    for (const s of services) {
      s.child.once('exit', (code, signal) => {
        if (!stopping) {
          say(`${s.name} exited (${code ?? signal}); see ${join(dataDir(), 'logs', `${s.name}.log`)}`);
          void stopAll(1);
        }
      });
    }
    const demo = await demoClient(gateway.url);
    const senderDomain = await demoSenderDomain(gateway.url, demo, dns);
    await demoWelcomeEmail(gateway.url, demo, senderDomain);
    // The status service watches the rest; its canary sends the demo's welcome email to a discarded address.
    const canary: Record<string, string> =
      senderDomain.status === 'verified'
        ? {
            STATUS_CANARY_CLIENT_ID: setting('STATUS_CANARY_CLIENT_ID', demo.clientId),
            STATUS_CANARY_API_KEY: setting('STATUS_CANARY_API_KEY', demo.apiKey),
            STATUS_CANARY_PROJECT_ID: setting('STATUS_CANARY_PROJECT_ID', demo.projectId),
            STATUS_CANARY_EMAIL_KEY: setting('STATUS_CANARY_EMAIL_KEY', 'welcome'),
            STATUS_CANARY_TO: setting('STATUS_CANARY_TO', 'canary@status.postbus.test'),
          }
        : {};
    say('starting the status service');
    const status = await startService('status', STATUS_PORT, {
      ...env,
      STATUS_SNAPSHOT_FILE: setting('STATUS_SNAPSHOT_FILE', join(dataDir(), 'status-snapshot.json')),
      // Locally its mails (subscription confirmations, notifications) land in the sink too; with a
      // real relay it needs its own STATUS_SMTP_URL (a relay that is not the one it reports on).
      ...(smtpGiven ? {} : { STATUS_SMTP_URL: setting('STATUS_SMTP_URL', env['SMTP_URL']!) }),
      // SMTP submission, on the ports it was started on: its /readyz, and a session on its STARTTLS port.
      SUBMISSION_URL: setting('SUBMISSION_URL', `http://127.0.0.1:${SUBMISSION_INTERNAL_PORT}`),
      SUBMISSION_SMTP_URL: setting('SUBMISSION_SMTP_URL', `smtp://127.0.0.1:${SUBMISSION_PORT}`),
      ...canary,
    });
    services.push(status);
    status.child.once('exit', (code, signal) => {
      if (!stopping) say(`status exited (${code ?? signal}); see ${join(dataDir(), 'logs', 'status.log')}`);
    });
    const url = `http://localhost:${GATEWAY_PORT}`;
    const pending =
      senderDomain.status === 'verified'
        ? ''
        : `\n  The demo domain is not verified by DNS_SERVERS (${env['DNS_SERVERS']}) yet: publish these records there, then\n  curl -u ${demo.clientId}:${demo.apiKey} -X POST ${url}/v1/sender-domains/${senderDomain.id}/verify\n${senderDomain.records
            .map((r) => `    ${r.type} ${r.name}  "${r.value}"`)
            .join('\n')}\n  Until then its triggers are refused with 422 (sender domain not verified).\n`;
    const sinkLine = smtpGiven
      ? `  Relay        ${redactUrl(env['SMTP_URL']!)}   (SMTP_URL)`
      : `  Mail sink    http://localhost:${SINK_HTTP_PORT}/api/v1/messages   (SMTP on 127.0.0.1:${SINK_SMTP_PORT}; Mailpit's API)`;
    console.log(`
Postbus is running.

  Gateway      ${url}
  Admin panel  ${url}/admin/   (sign in with the demo client id and api key below)
  API docs     ${url}/docs   (OpenAPI: ${url}/v1/openapi.json)
  Status page  http://localhost:${STATUS_PORT}   (operator view /operator and API: Bearer STATUS_OPERATOR_TOKEN from .data/secrets.json;
               e.g. STATUS_OPERATOR_TOKEN=… npx postbus status show)
  Health       ${url}/readyz · metrics http://127.0.0.1:${GATEWAY_INTERNAL_PORT}/metrics (internal listener)
${sinkLine}
  Inbound MX   smtp://127.0.0.1:${INBOUND_SMTP_PORT}   (bounces, complaints and mailto unsubscribes to pb-bounces.<sender domain>)
  SMTP         127.0.0.1:${SUBMISSION_PORT} (STARTTLS) · 127.0.0.1:${SUBMISSION_TLS_PORT} (implicit TLS)   (any app's mailer: AUTH PLAIN or LOGIN,
               user name the project id, password an API key${tls.selfSigned ? `; the certificate is self-signed: ${submissionTlsDir}/cert.pem` : ''})
  Logs         ${dataDir()}/logs/{gateway,users,mailer,webhook-dispatcher,payments,erasure,inbound,submission,status,smtp-sink}.log

Demo client (kept in .data/demo-client.json):
  client id    ${demo.clientId}
  api key      ${demo.apiKey}
  project id   ${demo.projectId}
  SMTP login   user ${demo.projectId} · password ${demo.apiKey}
  sender domain ${DEMO_DOMAIN} (${senderDomain.status})${dns ? ', its records served by the local DNS server' : ''}
  email        welcome (template "Welcome to Postbus, {{user.name}}")
${pending}
Try it:
  curl -u ${demo.clientId}:${demo.apiKey} -H 'Content-Type: application/json' \\
    -d '{"user":{"email":"ada@example.com","name":"Ada"},"data":{"code":"4711"}}' \\
    ${url}/v1/projects/${demo.projectId}/emails/welcome/send

  curl -u ${demo.clientId}:${demo.apiKey} '${url}/v1/projects/${demo.projectId}/messages?email=ada@example.com'
${smtpGiven ? '' : `  curl http://localhost:${SINK_HTTP_PORT}/api/v1/messages\n`}
  swaks --server 127.0.0.1:${SUBMISSION_PORT} --tls --auth-user ${demo.projectId} --auth-password ${demo.apiKey} \\
    --from hello@${DEMO_DOMAIN} --to ada@example.com --header 'Subject: Hello over SMTP' --body 'Sent with swaks'

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
