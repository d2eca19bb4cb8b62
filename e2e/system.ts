import { execFileSync, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import {
  basicAuth,
  call,
  freePort,
  repoRoot,
  startDnsServer,
  startService,
  startSmtpSink,
  systemEnv,
  uniqueName,
  type LocalDnsServer,
  type ServiceProcess,
  type SmtpSink,
} from '@postbus/testing';

export type ServiceName = 'gateway' | 'users' | 'mailer' | 'webhook-dispatcher' | 'payments' | 'erasure';

export interface RunningSystem {
  gatewayUrl: string;
  mailerUrl: string;
  /** Starts one more instance of a service (another port, same configuration). */
  startInstance(name: ServiceName, logName: string): Promise<ServiceProcess>;
  env: Record<string, string>;
  services: Record<ServiceName, ServiceProcess>;
  dns: LocalDnsServer;
  sink: SmtpSink;
  /** The inbound MX, when the system was started with it: its process and the port of its SMTP server. */
  inbound?: { process: ServiceProcess; smtpPort: number };
  /** SMTP submission, when the system was started with it: its process and its STARTTLS and implicit TLS ports (a self-signed certificate). */
  submission?: { process: ServiceProcess; smtpPort: number; smtpTlsPort: number };
  /** Starts a service again (after kill()) with the same configuration. */
  restart(name: ServiceName): Promise<ServiceProcess>;
  stop(): Promise<void>;
}

/**
 * How test systems fetch. A graceful stop waits for each consumer's fetch in flight, which the
 * consumers off the mail's path let the broker hold 5 s in production: here 500 ms, so that every
 * stop and restart a test makes (and every file's system at its end) waits that long at most.
 *
 * In npm test's concurrent lane several systems idle side by side, and an idle mailer or webhook
 * dispatcher fetches 50 times a second (KAFKA_FETCH_MAX_WAIT_MS, 20 ms for the send path's
 * latency): measured, a third of an idle system's CPU and most of the broker's. There, where no
 * test asserts a latency (those run in the quiet lane, with the production wait), a fetch on the
 * mail's path waits up to 200 ms, and one beside it (the users service registering recipients,
 * the mailer's batch lane) 500 ms. It still gathers its minimum bytes: answering at the first byte
 * instead costs more than it saves, as files that write thousands of messages then fetch them a
 * few at a time.
 */
const testFetch = (): Record<string, string> => ({
  KAFKA_IDLE_FETCH_MAX_WAIT_MS: '500',
  ...(process.env['POSTBUS_TEST_LANE'] === 'concurrent'
    ? { KAFKA_FETCH_MAX_WAIT_MS: '200', KAFKA_BACKGROUND_FETCH_MAX_WAIT_MS: '500' }
    : {}),
});

/**
 * Starts the whole system as separate processes, as `npm start` does, but isolated: its own
 * databases, topic namespace and ports.
 */
export async function startSystem(
  extraEnv: Record<string, string> = {},
  options: {
    inbound?: boolean;
    /** SMTP submission too, started once the gateway answers (it hands every message to the gateway's API). */
    submission?: boolean;
    /** Where the DNS server listens, when a test needs it at a set address (a resolver that cannot take a port: port 53); default a free port on 127.0.0.1. */
    dns?: { host: string; port: number };
  } = {},
): Promise<RunningSystem> {
  const id = uniqueName('e2e');
  const [gatewayPort, usersPort, mailerPort, webhooksPort, paymentsPort, erasurePort] = await Promise.all([
    freePort(),
    freePort(),
    freePort(),
    freePort(),
    freePort(),
    freePort(),
  ]);
  const [dns, sink] = await Promise.all([startDnsServer(options.dns?.port, options.dns?.host), startSmtpSink()]);
  const ports: Record<ServiceName, number> = {
    gateway: gatewayPort,
    users: usersPort,
    mailer: mailerPort,
    'webhook-dispatcher': webhooksPort,
    payments: paymentsPort,
    erasure: erasurePort,
  };
  const inboundPorts = options.inbound ? { http: await freePort(), smtp: await freePort() } : undefined;
  const submissionPorts = options.submission ? { http: await freePort(), smtp: await freePort(), smtpTls: await freePort() } : undefined;
  const env = systemEnv({
    namespace: id,
    ports: { ...ports, ...(inboundPorts ? { inbound: inboundPorts.http } : {}) },
    smtpUrl: sink.smtpUrl,
    dnsServers: dns.address,
    overrides: {
      KAFKA_TOPIC_PARTITIONS: '3',
      // A request that would scan a collection growing with traffic fails the test (issue 14).
      QUERY_AUDIT: 'strict',
      WEBHOOK_RETRY_SCHEDULE: '0,0.3,0.6,1,1,1,1,1',
      WEBHOOK_TIMEOUT_MS: '2000',
      MAILER_RETRY_BASE_MS: '300',
      // Small enough that e2e/attachments reaches it with three sends; a file that floods on purpose sets its own.
      ATTACHMENT_QUOTA_BYTES: String(24 * 1024 * 1024),
      // A message's first render may keep its run waiting 300 ms in production before it is deferred.
      // Beside other systems a cold worker thread's compile can pass that, and the deferral would show
      // in the timelines tests assert exactly; the test of that budget (template-isolation) sets 300.
      TEMPLATE_RUN_PATIENCE_MS: '5000',
      ...testFetch(),
      LOG_LEVEL: 'info',
      ...extraEnv,
    },
  });
  const launch = (name: ServiceName) => startService(name, ports[name], env, `${id}-${name}`);
  const [users, mailer, dispatcher, payments, erasure] = await Promise.all([
    launch('users'),
    launch('mailer'),
    launch('webhook-dispatcher'),
    launch('payments'),
    launch('erasure'),
  ]);
  const services: Record<ServiceName, ServiceProcess> = {
    users,
    mailer,
    'webhook-dispatcher': dispatcher,
    payments,
    erasure,
    gateway: await launch('gateway'),
  };
  const inbound = inboundPorts && {
    process: await startService('inbound', inboundPorts.http, { ...env, INBOUND_SMTP_PORT: String(inboundPorts.smtp) }, `${id}-inbound`),
    smtpPort: inboundPorts.smtp,
  };
  const submission = submissionPorts && {
    process: await startService(
      'submission',
      submissionPorts.http,
      { ...env, SUBMISSION_PORT: String(submissionPorts.smtp), SUBMISSION_TLS_PORT: String(submissionPorts.smtpTls) },
      `${id}-submission`,
    ),
    smtpPort: submissionPorts.smtp,
    smtpTlsPort: submissionPorts.smtpTls,
  };
  /** The processes of the parts started beside the services: the inbound MX, SMTP submission. */
  const extras = [...(inbound ? [inbound.process] : []), ...(submission ? [submission.process] : [])];
  return {
    gatewayUrl: services.gateway.url,
    mailerUrl: services.mailer.url,
    async startInstance(name, logName) {
      return startService(name, await freePort(), env, `${id}-${logName}`);
    },
    env,
    services,
    dns,
    sink,
    ...(inbound ? { inbound } : {}),
    ...(submission ? { submission } : {}),
    async restart(name) {
      services[name] = await launch(name);
      return services[name];
    },
    async stop() {
      await Promise.all([...Object.values(services), ...extras].map((s) => s.stop()));
      await sink.process.stop();
      await dns.close();
    },
  };
}

/** What scripts/test-environment.cjs keeps for a process from one test file to the next. */
interface SharedSystemHolder {
  current: Promise<RunningSystem> | undefined;
  /** Its processes, which the worker sends SIGTERM as it exits (all a process on its way out can do). */
  processes: ChildProcess[];
}

/** The parts of a system started beside its services: the inbound MX and SMTP submission, when it has them. */
const extrasOf = (system: RunningSystem): ServiceProcess[] => [
  ...(system.inbound ? [system.inbound.process] : []),
  ...(system.submission ? [system.submission.process] : []),
];

/** The processes of a system: its services, the inbound MX and SMTP submission when it has them, and the mail sink. */
const processesOf = (system: RunningSystem): ChildProcess[] => [
  ...Object.values(system.services).map((s) => s.child),
  ...extrasOf(system).map((s) => s.child),
  system.sink.process.child,
];

/**
 * The system this jest worker shares between the files whose docblock says `@postbus-system shared`
 * (scripts/test-environment.cjs keeps it from one to the next, and stops it before any other file):
 * the default configuration, with the inbound MX and SMTP submission. Those files neither kill nor reconfigure a
 * service, and each brings its own client, project and addresses. The mail sink and the DNS server
 * are shared too: a file finds its mail by Message-ID or recipient, never by counting the sink.
 * The system it hands out cannot be stopped, restarted or grown: a file that needs that starts its
 * own with startSystem().
 */
export async function sharedSystem(): Promise<RunningSystem> {
  const holder = (globalThis as { postbusSharedSystem?: SharedSystemHolder }).postbusSharedSystem;
  if (!holder) throw new Error('sharedSystem() is for test files whose docblock says @postbus-system shared');
  if (!holder.current) {
    const starting = startSystem({}, { inbound: true, submission: true }).then((system) => {
      // The worker may end while the system still runs: nothing of it keeps the process alive.
      for (const child of processesOf(system)) child.unref();
      system.dns.unref();
      holder.processes = processesOf(system);
      return system;
    });
    holder.current = starting;
    starting.catch(() => {
      if (holder.current === starting) holder.current = undefined;
    });
  }
  const system = await holder.current;
  // An earlier file broke the rule above if a process of it has ended: say so, rather than fail on it later.
  const parts = [...Object.values(system.services), ...extrasOf(system)];
  const ended = parts.filter((s) => s.child.exitCode !== null || s.child.signalCode !== null).map((s) => s.name);
  if (ended.length > 0)
    throw new Error(`the worker's shared system has lost ${ended.join(', ')}: a file that uses it must not stop a service`);
  const refuse = (what: string) => () => {
    throw new Error(`a file does not ${what} the shared system: start its own with startSystem()`);
  };
  return { ...system, stop: refuse('stop'), restart: refuse('restart a service of'), startInstance: refuse('add instances to') };
}

export interface DemoClient {
  clientId: string;
  apiKey: string;
  auth: string;
  projectId: string;
}

/** Creates a client with the operator CLI, then a project through the API, as an operator and a client would. */
export async function createClientAndProject(system: RunningSystem, scope: 'full' | 'sdk' = 'full'): Promise<DemoClient> {
  const out = execFileSync(
    process.execPath,
    [join(repoRoot, 'services/gateway/bin/postbus.js'), 'clients', 'create', '--name', 'E2E', '--scope', scope, '--json'],
    {
      env: { ...process.env, ...system.env },
      encoding: 'utf8',
    },
  );
  const { client_id: clientId, api_key: apiKey } = JSON.parse(out) as { client_id: string; api_key: string };
  const auth = basicAuth(clientId, apiKey);
  const project = await call(system.gatewayUrl, 'POST', '/v1/projects', { auth, json: { name: 'E2E project' } });
  if (project.status !== 201) throw new Error(`creating the project failed: ${project.status} ${project.text}`);
  return { clientId, apiKey, auth, projectId: project.body.id as string };
}

export interface SendableEmail {
  /** The domain mail comes from, with its DKIM key published in the system's DNS server. */
  domain: string;
  emailKey: string;
  templateId: string;
}

export interface EmailSetup {
  domain?: string;
  key?: string;
  subject?: string;
  html?: string;
  text?: string;
  trackOpens?: boolean;
  trackClicks?: boolean;
  /** Also a tracking domain (its CNAME published and verified) on the project. */
  trackingDomain?: string;
  sendToUnsubscribed?: boolean;
}

/** Walks the prerequisites through the API: a verified sender domain (and tracking domain), a template and an email. */
export async function createSendableEmail(system: RunningSystem, client: DemoClient, setup: EmailSetup = {}): Promise<SendableEmail> {
  const api = async (method: string, path: string, json?: unknown, expected = [200, 201]) => {
    const res = await call(system.gatewayUrl, method, path, { auth: client.auth, ...(json !== undefined ? { json } : {}) });
    if (!expected.includes(res.status)) throw new Error(`${method} ${path} answered ${res.status}: ${res.text}`);
    return res.body as { id: string; records: Array<{ name: string; type: 'TXT' | 'CNAME'; value: string }>; status: string };
  };
  const verify = async (kind: 'sender-domains' | 'tracking-domains', name: string) => {
    const created = await api('POST', `/v1/${kind}`, { domain: name }, [201, 409]);
    const domain = created.id
      ? created
      : (
          (await api('GET', `/v1/${kind}`)) as unknown as { data: Array<{ id: string; domain: string; records: typeof created.records }> }
        ).data.find((d) => d.domain === name)!;
    for (const record of domain.records) system.dns.publish(record.name, record.type, [record.value]);
    const verified = await api('POST', `/v1/${kind}/${domain.id}/verify`);
    if (verified.status !== 'verified') throw new Error(`${name} did not verify`);
    return domain.id;
  };
  const domain = setup.domain ?? 'mail.e2e.example';
  const senderDomainId = await verify('sender-domains', domain);
  const trackingDomainId = setup.trackingDomain ? await verify('tracking-domains', setup.trackingDomain) : null;
  const p = `/v1/projects/${client.projectId}`;
  await api('PATCH', p, {
    sender_domain_id: senderDomainId,
    tracking_domain_id: trackingDomainId,
    from_email: `hello@${domain}`,
    from_name: 'E2E Sender',
  });
  const template = await api('POST', `${p}/templates`, {
    name: 'E2E template',
    subject: setup.subject ?? 'Hello {{user.name}}',
    html: setup.html ?? '<p>Hi {{user.name}}, your code is {{data.code}}.</p>',
    ...(setup.text ? { text: setup.text } : {}),
  });
  const emailKey = setup.key ?? 'welcome';
  await api('POST', `${p}/emails`, {
    key: emailKey,
    name: emailKey,
    template_id: template.id,
    track_opens: setup.trackOpens ?? false,
    track_clicks: setup.trackClicks ?? false,
    send_to_unsubscribed: setup.sendToUnsubscribed ?? false,
  });
  return { domain, emailKey, templateId: template.id };
}
