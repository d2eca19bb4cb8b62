import { ConsumerGroups } from '@postbus/contracts';
import type { Logger } from '@postbus/logger';
import { retrySchedule, type DispatcherConfig } from '../config';
import { send } from '../clients/webhook-sender';
import { DeliveryWorker } from '../domain/delivery-worker';
import { DeliveryErasure } from '../domain/erasure-participant';
import { EventFanout } from '../domain/event-fanout';
import { erasureHandlers, eventHandlers, projectHandlers } from '../handlers';
import type { Infrastructure } from './infrastructure';
import type { Stores } from './stores';

/** What the consumers set going that the later steps start and stop. */
export interface Consumers {
  /** Makes the first attempts the event consumer hands it at once; its poll of the due queue is started by startBackgroundWork. */
  worker: DeliveryWorker;
}

/**
 * The delivery worker, the fan-out of events into deliveries and the erasure participant, and
 * the two consumer groups that feed them (they stop with the bus).
 */
export async function startConsumers(
  config: DispatcherConfig,
  logger: Logger,
  { bus, policy }: Infrastructure,
  { endpoints, deliveries, projects }: Stores,
): Promise<Consumers> {
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
  return { worker };
}
