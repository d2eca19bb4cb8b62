import { randomBytes } from 'node:crypto';
import { Bus, busOptions } from '@postbus/bus';
import { loadConfig } from '@postbus/config';
import { createLogger } from '@postbus/logger';
import { testInternalApiSecret, uniqueName } from '@postbus/testing';
import { start, type Dispatcher } from '../src/app';
import { DispatcherConfig } from '../src/config';

/** A dispatcher's configuration for one test file: its own topics and database, one partition, receivers on 127.0.0.1 admitted. */
export const testDispatcherConfig = (env: Record<string, string> = {}): DispatcherConfig => {
  const namespace = uniqueName('t');
  return loadConfig(DispatcherConfig, {
    ...process.env,
    PORT: '0',
    KAFKA_NAMESPACE: namespace,
    KAFKA_TOPIC_PARTITIONS: '1',
    WEBHOOKS_DB_NAME: namespace.replace(/-/g, '_'),
    SECRETS_KEY: randomBytes(32).toString('base64'),
    WEBHOOK_ALLOWED_HOSTS: '127.0.0.1',
    INTERNAL_API_SECRET: testInternalApiSecret,
    LOG_LEVEL: 'error',
    ...env,
  });
};

/** Starts the dispatcher in-process, and a bus for the test to publish events on. */
export async function startTestDispatcher(config: DispatcherConfig): Promise<{ dispatcher: Dispatcher; bus: Bus }> {
  const dispatcher = await start({ config, logger: createLogger({ service: 'dispatcher-test', level: 'error' }) });
  const bus = new Bus({ ...busOptions(config), service: 'postbus/test', logger: createLogger({ service: 'test', level: 'error' }) });
  return { dispatcher, bus };
}
