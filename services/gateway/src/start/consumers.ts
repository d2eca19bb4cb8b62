import { busOptions } from '@postbus/bus';
import { ConsumerGroups, Topics } from '@postbus/contracts';
import type { Logger } from '@postbus/logger';
import type { GatewayConfig } from '../config';
import { AcceptedMessages } from '../domain/accepted-messages';
import { CatalogFeed } from '../domain/catalog-feed';
import { announceOnBus, KeyAdmin } from '../domain/key-admin';
import { TriggerCatalog } from '../domain/trigger-catalog';
import { instanceHandlers } from '../handlers';
import { KeyCheck } from '../http/key-check';
import { SharedCounters } from '../http/rate-limit';
import type { Infrastructure } from './infrastructure';
import type { Stores } from './stores';

/**
 * How far another gateway instance's clock may run ahead of this one's: records it writes to a
 * lane carry its time, and a lookup of a trigger reads on past records that much newer than it.
 */
const OTHER_GATEWAYS_CLOCK_ALLOWANCE_MS = 10_000;

/** The domain objects the routes and the instance's handlers share. */
export interface Consumers {
  accepted: AcceptedMessages;
  triggerCatalog: TriggerCatalog;
  /** Started (its first republish done); its timers stop in startBackgroundWork. */
  catalogFeed: CatalogFeed;
  keyCheck: KeyCheck;
  keyAdmin: KeyAdmin;
  /** Counting already; their sharing starts in startBackgroundWork. */
  counters: SharedCounters;
}

/**
 * Makes the domain objects, republishes the catalog, and joins this instance's own consumer group
 * (revoked keys, the other instances' counts). Nothing to undo here: closing the bus stops the group.
 */
export async function startConsumers(
  config: GatewayConfig,
  logger: Logger,
  { bus, instance, triggers }: Infrastructure,
  { catalogChanges, apiKeys, projects, domains, templates, layouts, emails }: Stores,
): Promise<Consumers> {
  const accepted = new AcceptedMessages({
    find: (lookup) => triggers.find(lookup),
    mailerHasRead: (lane, record) =>
      bus.groupHasRead(
        lane === Topics.EmailBulk ? ConsumerGroups.mailerBulk : ConsumerGroups.mailerTriggers,
        lane,
        record.partition,
        record.offset,
      ),
    windowMs: config.KAFKA_ACK_TIMEOUT_MS + OTHER_GATEWAYS_CLOCK_ALLOWANCE_MS,
    // The lanes keep triggers this long: an older id has nothing to find.
    maxAgeMs: busOptions(config).piiRetentionMs ?? Number.POSITIVE_INFINITY,
  });

  // The cache listens first: no trigger may resolve against a plan the change outdated while it is being published.
  const triggerCatalog = new TriggerCatalog({ projects, emails, domains, templates, ttlMs: config.CATALOG_CACHE_TTL_MS });
  catalogChanges.listen(triggerCatalog.forget);
  const catalogFeed = new CatalogFeed({
    publisher: bus.publisher,
    sources: [projects, domains, templates, layouts, emails],
    logger,
    resyncIntervalMs: config.CATALOG_RESYNC_INTERVAL_MS,
  });
  catalogChanges.listen((change) => catalogFeed.changed(change));
  await catalogFeed.start();

  const keyCheck = new KeyCheck(apiKeys, config.AUTH_CACHE_TTL_MS, logger);
  const keyAdmin = new KeyAdmin(apiKeys, async (revoked) => {
    keyCheck.revoked(revoked.keyId);
    await announceOnBus(bus.publisher)(revoked).catch((error: unknown) => {
      // Stored already: the other instances' key caches expire within a second anyway.
      logger.warn('announcing a key revocation failed', { keyId: revoked.keyId, error: (error as Error).message });
    });
  });
  const counters = new SharedCounters({
    instance,
    publish: (report) => bus.publisher.publish(Topics.GatewayUsage, 'gateway.usage', instance, report).then(() => undefined),
    shareEveryMs: config.RATE_LIMIT_SHARE_MS,
    logger,
  });
  // Every instance hears every revocation and every other instance's counts: a group of its own, from now on.
  await bus.consume({
    groupId: `postbus-gateway-${instance}`,
    fromBeginning: false,
    partitionsConsumedConcurrently: config.KAFKA_TOPIC_PARTITIONS * 2,
    handlers: instanceHandlers(keyCheck, counters),
  });
  return { accepted, triggerCatalog, catalogFeed, keyCheck, keyAdmin, counters };
}
