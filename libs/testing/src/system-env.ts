import { randomBytes } from 'node:crypto';
import { LOCAL_WEBHOOK_ALLOWED_HOSTS } from './local-settings';

/** The services a whole system runs (the SMTP sink is started on its own: it reads none of this). */
export type SystemService = 'gateway' | 'users' | 'mailer' | 'webhook-dispatcher' | 'payments' | 'erasure' | 'status' | 'inbound';

/** The variable naming each service's own database, and the word its database name ends in. */
const DATABASES: Record<SystemService, { variable: string; suffix: string }> = {
  gateway: { variable: 'GATEWAY_DB_NAME', suffix: 'gateway' },
  users: { variable: 'USERS_DB_NAME', suffix: 'users' },
  mailer: { variable: 'MAILER_DB_NAME', suffix: 'mailer' },
  'webhook-dispatcher': { variable: 'WEBHOOKS_DB_NAME', suffix: 'webhooks' },
  payments: { variable: 'PAYMENTS_DB_NAME', suffix: 'payments' },
  erasure: { variable: 'ERASURE_DB_NAME', suffix: 'erasure' },
  status: { variable: 'STATUS_DB_NAME', suffix: 'status' },
  inbound: { variable: 'INBOUND_DB_NAME', suffix: 'inbound' },
};

/** The variable the other services (and the status service) reach a service at. */
const URL_VARIABLES: Partial<Record<SystemService, string>> = {
  gateway: 'GATEWAY_URL',
  users: 'USERS_URL',
  mailer: 'MAILER_URL',
  'webhook-dispatcher': 'WEBHOOKS_URL',
  payments: 'PAYMENTS_URL',
  erasure: 'ERASURE_URL',
};

export interface SystemEnvOptions {
  /**
   * A throw-away system (e2e tests, benchmarks): its Kafka topic namespace, the prefix of its
   * databases' names, and settings that make it quick to test (the erasure sweep every second,
   * webhooks to this machine). Without one, the services' own defaults (`npm start`).
   */
  namespace?: string;
  /** The services of the system and the ports they listen on: each is reachable at 127.0.0.1 on it. */
  ports: Partial<Record<SystemService, number>>;
  /** The relay the mailer sends through (SMTP_URL); none: the service's default. */
  smtpUrl?: string;
  /** The DNS servers sender and tracking domains are verified with (DNS_SERVERS); none: the service's default. */
  dnsServers?: string;
  /** The host in PUBLIC_BASE_URL (links in mail); default 127.0.0.1. */
  publicHost?: string;
  /** The gateway's internal listener (/metrics); default 0, a free port for each instance. */
  internalPort?: number;
  /** Secrets to use; the ones not given (SECRETS_KEY, TRACKING_SECRET, SESSION_SECRET, INTERNAL_API_SECRET, ERASURE_AUDIT_KEY) are made up. */
  secrets?: Record<string, string>;
  /** Settings over the built ones: what one run wants differently (LOG_LEVEL, partitions, …). */
  overrides?: Record<string, string>;
  /**
   * Settings that win over everything else where they are set and not empty, for the variables
   * this environment sets (`npm start`: the user's environment and .env).
   */
  given?: Record<string, string | undefined>;
}

/** The name of a service's database in the throw-away system `namespace`. */
export const databaseName = (namespace: string, service: SystemService): string =>
  `${namespace.replace(/-/g, '_')}_${DATABASES[service].suffix}`;

const hex = () => randomBytes(32).toString('hex');

/**
 * The environment of the whole system, one for all its services (each reads what its config
 * declares and ignores the rest): where each service is, its database, the relay, DNS, secrets.
 * e2e (`startSystem`), the benchmarks and `npm start` build theirs here.
 */
export function systemEnv(options: SystemEnvOptions): Record<string, string> {
  const { namespace, ports } = options;
  const has = (name: SystemService) => ports[name] !== undefined;
  const local = (port: number, host = '127.0.0.1') => `http://${host}:${port}`;
  const env: Record<string, string> = {};
  if (namespace !== undefined) {
    env['KAFKA_NAMESPACE'] = namespace;
    for (const name of Object.keys(ports) as SystemService[]) env[DATABASES[name].variable] = databaseName(namespace, name);
  }
  for (const [name, port] of Object.entries(ports) as [SystemService, number][]) {
    const variable = URL_VARIABLES[name];
    if (variable) env[variable] = local(port);
  }
  if (has('gateway')) {
    env['PUBLIC_BASE_URL'] = local(ports.gateway!, options.publicHost);
    env['INTERNAL_PORT'] = String(options.internalPort ?? 0);
    env['SPF_INCLUDE'] = 'spf.postbus.test';
  }
  if (has('webhook-dispatcher'))
    // A throw-away system's receivers listen anywhere on this machine; `npm start` keeps them off the services' ports.
    env['WEBHOOK_ALLOWED_HOSTS'] = namespace !== undefined ? '127.0.0.1,localhost' : LOCAL_WEBHOOK_ALLOWED_HOSTS;
  if (has('erasure') && namespace !== undefined) env['ERASURE_SCHEDULE'] = '* * * * * *';
  if (options.smtpUrl !== undefined) env['SMTP_URL'] = options.smtpUrl;
  if (options.dnsServers !== undefined) env['DNS_SERVERS'] = options.dnsServers;
  Object.assign(
    env,
    {
      SECRETS_KEY: randomBytes(32).toString('base64'),
      TRACKING_SECRET: hex(),
      SESSION_SECRET: hex(),
      INTERNAL_API_SECRET: hex(),
      ...(has('erasure') || has('mailer') ? { ERASURE_AUDIT_KEY: hex() } : {}),
    },
    options.secrets,
    options.overrides,
  );
  for (const [name, value] of Object.entries(options.given ?? {})) if (name in env && value) env[name] = value;
  return env;
}
