import { execFileSync } from 'node:child_process';
import { createConnection } from 'node:net';
import { join, resolve } from 'node:path';

/** The repository root (libs/testing/{src,dist}/ → ../../..). */
export const repoRoot = resolve(__dirname, '..', '..', '..');

/** Where local data and logs live: $POSTBUS_DATA_DIR, else .data/ in the repository (as deploy/local/infra.sh). */
export const dataDir = () => process.env['POSTBUS_DATA_DIR'] || join(repoRoot, '.data');

export const defaultKafkaBrokers = () => process.env['KAFKA_BROKERS'] ?? '127.0.0.1:9092';
export const defaultMongoUrl = () => process.env['MONGO_URL'] ?? 'mongodb://127.0.0.1:27017';

/** True when something accepts TCP connections on host:port. */
export function portOpen(host: string, port: number, timeoutMs = 1000): Promise<boolean> {
  return new Promise((done) => {
    const socket = createConnection({ host, port });
    const finish = (open: boolean) => {
      socket.destroy();
      done(open);
    };
    socket.setTimeout(timeoutMs, () => finish(false));
    socket.once('connect', () => finish(true));
    socket.once('error', () => finish(false));
  });
}

const hostPort = (value: string): [string, number] => {
  const [host = '127.0.0.1', port = '0'] = value
    .replace(/^mongodb:\/\//, '')
    .split('/')[0]!
    .split(',')[0]!
    .split(':');
  return [host, Number(port || 27017)];
};

export type LocalComponent = 'kafka' | 'ferretdb';

/**
 * Makes sure Kafka and the MongoDB-wire server answer. One named by KAFKA_BROKERS / MONGO_URL must
 * answer as it is (it is the user's own); a local default that does not answer is started with
 * deploy/local/infra.sh, each on its own, so a half-running local infrastructure is completed.
 * Resolves with what it started: the caller owns those and stops them with stopInfrastructure().
 * With `ownerPid`, what it starts also stops by itself once that process is gone.
 */
export async function ensureInfrastructure(options: { ownerPid?: number } = {}): Promise<LocalComponent[]> {
  const wanted: Array<{ name: LocalComponent; variable: string; value: string; given: boolean }> = [
    { name: 'ferretdb', variable: 'MONGO_URL', value: defaultMongoUrl(), given: Boolean(process.env['MONGO_URL']) },
    { name: 'kafka', variable: 'KAFKA_BROKERS', value: defaultKafkaBrokers(), given: Boolean(process.env['KAFKA_BROKERS']) },
  ];
  const started: LocalComponent[] = [];
  for (const component of wanted) {
    if (await portOpen(...hostPort(component.value))) continue;
    if (component.given) throw new Error(`${component.variable} (${component.value}) does not answer`);
    const env = { ...process.env, ...(options.ownerPid ? { POSTBUS_OWNER_PID: String(options.ownerPid) } : {}) };
    execFileSync('bash', [join(repoRoot, 'deploy/local/infra.sh'), 'up', component.name], { stdio: 'inherit', env });
    started.push(component.name);
  }
  return started;
}

/** Stops the local components that ensureInfrastructure() started. */
export function stopInfrastructure(components: LocalComponent[]): void {
  for (const component of components) {
    execFileSync('bash', [join(repoRoot, 'deploy/local/infra.sh'), 'down', component], { stdio: 'inherit' });
  }
}
