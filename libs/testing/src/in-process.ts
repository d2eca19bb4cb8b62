import { testInternalApiSecret } from './internal-api';
import { uniqueName } from './wait';

/** A database of its own for one test file: a unique name, with underscores (as MongoDB names take them). */
export const uniqueDbName = (prefix: string): string => uniqueName(prefix).replace(/-/g, '_');

/**
 * The environment of a service an integration test starts in-process: this process's, with any free
 * port, the test file's topic namespace at three partitions, its internal-API secret, errors only in
 * the log and the query audit strict; `env` adds to it (the service's database name) or overrides it.
 */
export const inProcessEnv = (namespace: string, env: Record<string, string> = {}): NodeJS.ProcessEnv => ({
  ...process.env,
  PORT: '0',
  KAFKA_NAMESPACE: namespace,
  KAFKA_TOPIC_PARTITIONS: '3',
  INTERNAL_API_SECRET: testInternalApiSecret,
  LOG_LEVEL: 'error',
  QUERY_AUDIT: 'strict',
  ...env,
});

/** What a test file starts and ends: a service, a recorder (stopped), a bus, a connection (closed). */
export type Started = { stop(): Promise<unknown> } | { close(): Promise<unknown> };

/**
 * Ends what a test file started, one after the other in the order given, each by its `stop()` or else
 * its `close()`; what a failed `beforeAll` never got to start (undefined) is passed over.
 */
export async function shutDown(...started: Array<Started | undefined>): Promise<void> {
  for (const resource of started) {
    if (resource === undefined) continue;
    if ('stop' in resource) await resource.stop();
    else await resource.close();
  }
}
