import { randomBytes } from 'node:crypto';
import mongoose from 'mongoose';
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

/** One operation mongoose sent: its collection, method and first argument (the filter, or the documents). */
export interface RecordedQuery {
  collection: string;
  method: string;
  filter: unknown;
}

/** The operations that take a filter (inserts take none). */
const FILTERED = new Set([
  'find',
  'findOne',
  'countDocuments',
  'updateOne',
  'updateMany',
  'replaceOne',
  'deleteOne',
  'deleteMany',
  'findOneAndUpdate',
  'findOneAndDelete',
  'distinct',
  'aggregate',
]);

/**
 * Records the operations every mongoose connection of this process sends to some collections
 * (mongoose's debug hook), to check that a read or a purge addresses documents by `_id` alone.
 */
export function recordQueries(collections: string[]): { queries: RecordedQuery[]; stop(): void } {
  const queries: RecordedQuery[] = [];
  mongoose.set('debug', (collection: string, method: string, filter: unknown) => {
    if (collections.includes(collection) && FILTERED.has(method)) queries.push({ collection, method, filter });
  });
  return { queries, stop: () => void mongoose.set('debug', false) };
}

/** True for `{_id: <string>}` and nothing else: what the embedded store serves from its index. */
export const isPointFilter = (filter: unknown): boolean =>
  typeof filter === 'object' &&
  filter !== null &&
  Object.keys(filter).length === 1 &&
  typeof (filter as Record<string, unknown>)['_id'] === 'string';
