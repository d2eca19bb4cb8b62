import express from 'express';
import { Bus, busOptions } from '@postbus/bus';
import { ConsumerGroups, Topics } from '@postbus/contracts';
import { SecretBox } from '@postbus/crypto';
import { connectDb, pingDb } from '@postbus/db';
import { AddressPolicy, closeServer, createMetricsRegistry, every, startInternalServer } from '@postbus/http';
import type { Logger } from '@postbus/logger';
import { retrySchedule, type DispatcherConfig } from './config';
import { DeliveryRetention } from './domain/delivery-retention';
import { DeliveryWorker } from './domain/delivery-worker';
import { DeliveryErasure } from './domain/erasure-participant';
import { EventFanout } from './domain/event-fanout';
import { send } from './clients/webhook-sender';
import { erasureHandlers, eventHandlers, projectHandlers } from './handlers';
import { internalApi } from './http/internal-api';
import { DeliveryStore } from './model/delivery.repository';
import { EndpointStore } from './model/endpoint.repository';
import { ProjectOwners } from './model/project.repository';
import { RetentionRuns } from './model/retention-run.repository';

export interface Dispatcher {
  port: number;
  stop(): Promise<void>;
}

/** Starts the webhook dispatcher: its database, the project projection, the event consumer, the delivery worker and its internal API. */
export async function start({ config, logger }: { config: DispatcherConfig; logger: Logger }): Promise<Dispatcher> {
  if (!config.SECRETS_KEY) logger.warn('SECRETS_KEY is not set: endpoint secrets are sealed with a random key that ends with this process');
  const db = await connectDb({ url: config.MONGO_URL, dbName: config.WEBHOOKS_DB_NAME, logger });
  const endpoints = new EndpointStore(db, new SecretBox(config.SECRETS_KEY || undefined));
  const deliveries = new DeliveryStore(db);
  const projects = new ProjectOwners(db);
  const runs = new RetentionRuns(db);
  await Promise.all([endpoints.init(), deliveries.init(), projects.init(), runs.init()]);
  const retention = new DeliveryRetention({
    deliveries,
    runs,
    logger,
    retentionDays: config.WEBHOOK_DELIVERY_RETENTION_DAYS,
    intervalMs: config.WEBHOOK_RETENTION_INTERVAL_MS,
  });
  const policy = new AddressPolicy(config.WEBHOOK_ALLOWED_HOSTS ? config.WEBHOOK_ALLOWED_HOSTS.split(',') : []);

  const worker = new DeliveryWorker({
    endpoints,
    deliveries,
    logger,
    schedule: retrySchedule(config),
    timeoutMs: config.WEBHOOK_TIMEOUT_MS,
    concurrency: config.WEBHOOK_CONCURRENCY,
    send,
    lookup: policy.lookup,
    connectRefusal: policy.connectRefusal,
  });

  const metrics = createMetricsRegistry('webhook-dispatcher');

  const bus = new Bus({ ...busOptions(config), service: 'postbus/webhook-dispatcher', logger, metrics });
  await bus.ensureTopics([
    { topic: Topics.Catalog, compacted: true },
    { topic: Topics.EmailEvents },
    { topic: Topics.UserEvents },
    { topic: Topics.ErasureEvents },
  ]);
  await bus.publisher.connect();
  const fanout = new EventFanout({ endpoints, deliveries, projects, logger, attemptFirst: worker.attemptFirst });
  const erasure = new DeliveryErasure({ deliveries });
  // Erasures share the projects' group (both quiet topics) rather than adding one: every consumer
  // group costs the broker a fetch loop. An erasure's scan may delay a new project's first
  // deliveries, which wait for their project anyway.
  await bus.consume({
    groupId: ConsumerGroups.webhooksProjects,
    handlers: [...projectHandlers(projects), ...erasureHandlers(erasure, bus.publisher)],
  });
  await bus.consume({
    groupId: ConsumerGroups.webhooks,
    gatherFetches: 'send-path',
    handlers: eventHandlers(fanout),
    partitionsConsumedConcurrently: config.KAFKA_TOPIC_PARTITIONS,
    // A run's deliveries are stored, attempted and recorded before the next run of its partition
    // starts: runs a few times the worker's concurrency keep it busy while other partitions'
    // runs are being stored, where runs of a whole fetch (a thousand events) left it idle.
    maxRunSize: config.WEBHOOK_CONCURRENCY * 4,
  });
  worker.start();
  const retentionLoop = every(config.WEBHOOK_RETENTION_INTERVAL_MS, () => retention.runOnce(), {
    onError: (error) => logger.warn('purging old webhook deliveries failed; the next run goes on', { error }),
  });

  const { server, port } = await startInternalServer({
    metrics,
    service: 'webhook-dispatcher',
    config,
    checks: { database: () => pingDb(db), bus: () => bus.publisher.healthy() },
    handlers: [
      express.json({ limit: '64kb' }),
      internalApi({ endpoints, deliveries, policy, secretOverlapMs: config.WEBHOOK_SECRET_OVERLAP_MS }),
    ],
    logger,
  });
  logger.info('webhook dispatcher started', { port, host: config.INTERNAL_HOST });

  return {
    port,
    async stop() {
      await worker.stop();
      await retentionLoop.stop();
      await closeServer(server);
      await bus.close();
      await db.close();
    },
  };
}
