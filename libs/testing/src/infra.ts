import { execFileSync } from 'node:child_process';
import { createConnection } from 'node:net';
import { join, resolve } from 'node:path';

/** The repository root (libs/testing/{src,dist}/ → ../../..). */
export const repoRoot = resolve(__dirname, '..', '..', '..');

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

/**
 * Makes sure Kafka and the MongoDB-wire server answer: when they do not and they are the local
 * defaults, starts them with deploy/local/infra.sh. Resolves true when it started them: the caller
 * then owns them and stops them with stopInfrastructure().
 */
export async function ensureInfrastructure(): Promise<boolean> {
  const kafka = hostPort(defaultKafkaBrokers());
  const mongo = hostPort(defaultMongoUrl());
  if ((await portOpen(...kafka)) && (await portOpen(...mongo))) return false;
  if (process.env['KAFKA_BROKERS'] || process.env['MONGO_URL']) {
    throw new Error(`KAFKA_BROKERS (${defaultKafkaBrokers()}) or MONGO_URL (${defaultMongoUrl()}) do not answer`);
  }
  execFileSync('bash', [join(repoRoot, 'deploy/local/infra.sh'), 'up'], { stdio: 'inherit' });
  return true;
}

/** Stops the local infrastructure (that ensureInfrastructure() started). */
export function stopInfrastructure(): void {
  execFileSync('bash', [join(repoRoot, 'deploy/local/infra.sh'), 'down'], { stdio: 'inherit' });
}
