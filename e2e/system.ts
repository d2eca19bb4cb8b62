import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { basicAuth, call, freePort, repoRoot, startService, uniqueName, type ServiceProcess } from '@postbus/testing';

export interface RunningSystem {
  gatewayUrl: string;
  env: Record<string, string>;
  services: Record<'gateway' | 'users', ServiceProcess>;
  /** Starts a service again (after kill()) with the same configuration. */
  restart(name: 'gateway' | 'users'): Promise<ServiceProcess>;
  stop(): Promise<void>;
}

/**
 * Starts the whole system as separate processes, as `npm start` does, but isolated: its own
 * databases, topic namespace and ports.
 */
export async function startSystem(extraEnv: Record<string, string> = {}): Promise<RunningSystem> {
  const id = uniqueName('e2e');
  const [gatewayPort, usersPort] = await Promise.all([freePort(), freePort()]);
  const env: Record<string, string> = {
    KAFKA_NAMESPACE: id,
    KAFKA_TOPIC_PARTITIONS: '3',
    GATEWAY_DB_NAME: `${id}_gateway`.replace(/-/g, '_'),
    USERS_DB_NAME: `${id}_users`.replace(/-/g, '_'),
    USERS_URL: `http://127.0.0.1:${usersPort}`,
    LOG_LEVEL: 'info',
    ...extraEnv,
  };
  const ports = { gateway: gatewayPort, users: usersPort };
  const launch = (name: 'gateway' | 'users') => startService(name, ports[name], env, `${id}-${name}`);
  const services = { users: await launch('users'), gateway: await launch('gateway') };
  return {
    gatewayUrl: services.gateway.url,
    env,
    services,
    async restart(name) {
      services[name] = await launch(name);
      return services[name];
    },
    async stop() {
      await Promise.all(Object.values(services).map((s) => s.stop()));
    },
  };
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
