/** Set-up shared by the benchmarks: the operator CLI, the public API's prerequisites of a send, the run's environment. */
import { execFile } from 'node:child_process';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import {
  basicAuth,
  call,
  defaultKafkaBrokers,
  defaultMongoUrl,
  repoRoot,
  systemEnv,
  type LocalDnsServer,
  type SystemEnvOptions,
} from '@postbus/testing';
import { BENCH_TEMPLATE, FROM_NAME, SENDER_DOMAIN } from './mail-template';

const run = promisify(execFile);

/** A run's environment: the whole system's (libs/testing), on the broker and the database server the run checked. */
export function benchEnv(options: SystemEnvOptions): Record<string, string> {
  return systemEnv({ ...options, overrides: { KAFKA_BROKERS: defaultKafkaBrokers(), MONGO_URL: defaultMongoUrl(), ...options.overrides } });
}

/** The throughput runs' settings: no rate limit, and services that log warnings only. */
export const UNTHROTTLED = { LOG_LEVEL: 'warn', RATE_LIMIT_PER_SECOND: '0' };

export interface Credentials {
  client_id: string;
  api_key: string;
}

/** A client made with the operator CLI, as an operator would; `env` holds MONGO_URL and GATEWAY_DB_NAME. */
export async function createClient(env: Record<string, string>, name = 'Bench'): Promise<Credentials> {
  const cli = join(repoRoot, 'services', 'gateway', 'bin', 'postbus.js');
  const { stdout } = await run(process.execPath, [cli, 'clients', 'create', '--name', name, '--json'], {
    env: { ...process.env, ...env },
  });
  const parsed = JSON.parse(stdout.trim().split('\n').at(-1) ?? '') as Partial<Credentials>;
  if (typeof parsed.client_id !== 'string' || typeof parsed.api_key !== 'string') throw new Error(`unexpected CLI output: ${stdout}`);
  return { client_id: parsed.client_id, api_key: parsed.api_key };
}

export const authorizationOf = (credentials: Credentials): string => basicAuth(credentials.client_id, credentials.api_key);

export async function createProject(gatewayUrl: string, authorization: string, name = 'bench'): Promise<string> {
  const res = await call(gatewayUrl, 'POST', '/v1/projects', { auth: authorization, json: { name } });
  if (res.status !== 201 || typeof res.body?.id !== 'string') throw new Error(`POST /v1/projects answered ${res.status}: ${res.text}`);
  return res.body.id as string;
}

interface DomainAnswer {
  id: string;
  status: string;
  records: Array<{ name: string; type: 'TXT' | 'CNAME'; value: string }>;
}

export interface SendableEmail {
  domain: string;
  emailKey: string;
  templateId: string;
}

/**
 * Walks a project's prerequisites of a send through the public API, as a client would: a sender domain whose
 * records are published in the local DNS server and verified, the project's sender, the benchmark's template
 * and a transactional email using it (no tracking).
 */
export async function createSendableEmail(
  gatewayUrl: string,
  authorization: string,
  projectId: string,
  dns: LocalDnsServer,
  emailKey = 'bench',
): Promise<SendableEmail> {
  const api = async <T>(method: string, path: string, json?: unknown, expected = [200, 201]): Promise<T> => {
    const res = await call(gatewayUrl, method, path, { auth: authorization, ...(json !== undefined ? { json } : {}) });
    if (!expected.includes(res.status)) throw new Error(`${method} ${path} answered ${res.status}: ${res.text}`);
    return res.body as T;
  };
  const domain = await api<DomainAnswer>('POST', '/v1/sender-domains', { domain: SENDER_DOMAIN }, [201]);
  for (const record of domain.records) dns.publish(record.name, record.type, [record.value]);
  const verified = await api<DomainAnswer>('POST', `/v1/sender-domains/${domain.id}/verify`);
  if (verified.status !== 'verified') throw new Error(`${SENDER_DOMAIN} did not verify: ${JSON.stringify(verified)}`);
  const p = `/v1/projects/${projectId}`;
  await api('PATCH', p, { sender_domain_id: domain.id, from_email: `hello@${SENDER_DOMAIN}`, from_name: FROM_NAME });
  const template = await api<{ id: string }>('POST', `${p}/templates`, { name: 'Bench template', ...BENCH_TEMPLATE });
  await api('POST', `${p}/emails`, {
    key: emailKey,
    name: emailKey,
    template_id: template.id,
    track_opens: false,
    track_clicks: false,
    send_to_unsubscribed: false,
  });
  return { domain: SENDER_DOMAIN, emailKey, templateId: template.id };
}

/**
 * What a sending benchmark sets up before its first trigger, as a client would: a client made with the CLI (`env`
 * as in createClient), a project, and a sendable email in it (see createSendableEmail). The client's credentials
 * come back too (SMTP submission logs in with the project id and the client's API key).
 */
export async function createSendingProject(
  env: Record<string, string>,
  gatewayUrl: string,
  dns: LocalDnsServer,
): Promise<{ authorization: string; projectId: string; email: SendableEmail; credentials: Credentials }> {
  const credentials = await createClient(env);
  const authorization = authorizationOf(credentials);
  const projectId = await createProject(gatewayUrl, authorization);
  const email = await createSendableEmail(gatewayUrl, authorization, projectId, dns);
  return { authorization, projectId, email, credentials };
}

export interface Environment {
  node: string;
  platform: string;
  cpus: number;
  cpuModel: string;
  gitCommit: string | null;
  gitDirty: boolean | null;
}

export async function environment(): Promise<Environment> {
  const git = (...args: string[]) =>
    run('git', args, { cwd: repoRoot }).then(
      ({ stdout }) => stdout.trim(),
      () => null,
    );
  const [commit, status] = await Promise.all([git('rev-parse', '--short', 'HEAD'), git('status', '--porcelain')]);
  return {
    node: process.version,
    platform: `${process.platform}-${process.arch}`,
    cpus: cpus().length,
    cpuModel: cpus()[0]?.model.trim() ?? 'unknown',
    gitCommit: commit,
    gitDirty: status === null ? null : status.length > 0,
  };
}
