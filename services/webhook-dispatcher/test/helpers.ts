import { randomBytes } from 'node:crypto';
import { Bus, busOptions } from '@postbus/bus';
import { loadConfig } from '@postbus/config';
import { Topics } from '@postbus/contracts';
import { createLogger } from '@postbus/logger';
import { call, internalAuthorization, testInternalApiSecret, uniqueName } from '@postbus/testing';
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

/** The catalog's record of a project of the client `cl_test`, as the gateway publishes it. */
export const catalogProject = (id: string) => ({
  id,
  clientId: 'cl_test',
  revision: Date.now(),
  name: 'p',
  fromEmail: null,
  fromName: null,
  replyTo: null,
  senderDomainId: null,
  trackingDomainId: null,
});

/** Publishes the project's record on the catalog topic. */
export const publishProject = (bus: Bus, id: string) =>
  bus.publisher.publish(Topics.Catalog, 'catalog.project', `project:${id}`, catalogProject(id));

/** Publishes that the message (the project's `welcome` email to `email`) was sent: its entry of sequence 2, keyed by the message. */
export const publishSent = (bus: Bus, messageId: string, projectId: string, email: string) => {
  const event = {
    messageId,
    projectId,
    emailKey: 'welcome',
    email,
    userId: null,
    event: 'sent' as const,
    sequence: 2,
    at: new Date().toISOString(),
  };
  return bus.publisher.publish(Topics.EmailEvents, 'message.sent', event.messageId, event, { id: `${event.messageId}:2` });
};

/** Registers a webhook of the client `cl_test` for every event at the receiver, through the dispatcher's internal API. */
export const createWebhook = async (dispatcher: Dispatcher, receiver: string) =>
  call(`http://127.0.0.1:${dispatcher.port}`, 'POST', '/internal/clients/cl_test/webhooks', {
    json: { url: receiver, events: ['*'] },
    auth: await internalAuthorization('webhook-dispatcher'),
  });
