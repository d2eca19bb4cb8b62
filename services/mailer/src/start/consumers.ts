import { randomBytes } from 'node:crypto';
import { SendPathPriority, type Bus, type Publisher } from '@postbus/bus';
import { ConsumerGroups, Topics } from '@postbus/contracts';
import { ReturnPathTokens, SecretBox, TrackingTokens } from '@postbus/crypto';
import { InternalTokens, internalApiSecret, type Teardown } from '@postbus/http';
import { LoopTurns } from '@postbus/http/loop-turns';
import type { Logger } from '@postbus/logger';
import { UsersClient } from '../clients/users-client';
import type { MailerConfig } from '../config';
import { BulkLane } from '../domain/bulk-lane';
import { Deliverer } from '../domain/delivery/deliverer';
import { Engagements } from '../domain/engagements';
import { MailerErasure } from '../domain/erasure-participant';
import { Feedback } from '../domain/feedback';
import type { MarkerWatch } from '../domain/marker-watch';
import { ScheduledSends, ScheduleWorker } from '../domain/scheduled-sends';
import { SuppressionList } from '../domain/suppression-list';
import { Timeline } from '../domain/timeline';
import { statusReached, TriggerDelivery } from '../domain/trigger-delivery';
import { bulkHandlers, catalogHandlers, emailCommandHandlers, feedbackHandlers, markerHandlers, peopleHandlers } from '../handlers';
import type { MessageLists } from '../model/message-list.repository';
import type { MessageStore } from '../model/message.repository';
import type { StatusRollups } from '../model/rollup.repository';
import type { Suppressions } from '../model/suppression.repository';
import type { Infrastructure } from './infrastructure';
import type { Stores } from './stores';

/** What the feedback path works on: the message records, the suppressions, and the publisher its events go out on. */
export interface FeedbackPathDeps {
  store: MessageStore;
  timeline: Timeline;
  suppressions: Suppressions;
  lists: MessageLists;
  rollups: StatusRollups;
  publisher: Publisher;
}

/**
 * The feedback path as the mailer wires it: the suppression list and the engagements (the people
 * and trigger consumers use them too), the send path's priority over delivery reports, and the
 * Feedback that records those reports.
 */
export function feedbackPath(deps: FeedbackPathDeps, config: Pick<MailerConfig, 'SOFT_BOUNCE_LIMIT' | 'FEEDBACK_RATE_WHILE_SENDING'>) {
  const { store, timeline, suppressions, lists, rollups, publisher } = deps;
  const suppressionList = new SuppressionList(suppressions, publisher);
  const sendPath = new SendPathPriority({ whileSendingPerSecond: config.FEEDBACK_RATE_WHILE_SENDING });
  const engagements = new Engagements({ store, timeline, suppressionList, suppressions, publisher });
  const softBounceLimit = config.SOFT_BOUNCE_LIMIT;
  const feedback = new Feedback({ store, timeline, suppressions, suppressionList, engagements, lists, rollups, softBounceLimit, sendPath });
  return { suppressionList, sendPath, engagements, feedback };
}

/**
 * Makes this instance's filter of the suppression markers answer for them (see MarkerWatch): its
 * own consumer of every instance's announcements, from the topic's start, then a scan of the
 * stored markers; live once the consumer has read what was announced before the scan began.
 * Until then, and whenever that consumer stops fetching, every recipient's marker is read.
 */
export async function watchMarkers(bus: Bus, suppressions: Suppressions, markers: MarkerWatch, logger: Logger): Promise<void> {
  const groupId = `postbus-mailer-markers-${randomBytes(6).toString('hex')}`;
  const consumer = await bus.consume({
    groupId,
    fromBeginning: true,
    gatherFetches: 'off-send-path',
    partitionsConsumedConcurrently: 1,
    handlers: markerHandlers(markers),
  });
  markers.connect(
    (keys) =>
      bus.publisher.publish(Topics.SuppressionMarkers, 'suppression.marked', keys[0]!.split(':')[0]!, { keys }).then(() => undefined),
    (ms) => consumer.fetchedWithin(ms),
  );
  // In the background: the mailer sends meanwhile, reading every marker.
  void (async () => {
    const scanFrom = new Date();
    await suppressions.eachMarkerKey((keys) => markers.heard(keys));
    while (!(await bus.groupHasPassed(groupId, [Topics.SuppressionMarkers], scanFrom).catch(() => false)))
      await new Promise((resolve) => setTimeout(resolve, MARKER_CATCH_UP_POLL_MS).unref()); // a stopping mailer does not wait for it
    markers.caughtUp();
    logger.info('suppression marker filter live', { markers: markers.filter.size });
  })().catch((error: unknown) =>
    logger.warn('the scan of the suppression markers failed: every recipient’s marker is read', { error: (error as Error).message }),
  );
}

const MARKER_CATCH_UP_POLL_MS = 500;

/**
 * How long one turn of the event loop may run mails' compose, sign and relay steps before the rest
 * wait for the next turn: the internal API's reads (the message log, lists) are answered between
 * turns, within about this, while a backlog drains.
 */
const LOOP_TURN_BUDGET_MS = 10;

/** What the consumers run on that the later steps use too: the internal API and the background workers. */
export interface MailerDomain {
  deliverer: Deliverer;
  timeline: Timeline;
  scheduled: ScheduledSends;
  /** Started here, before the consumers; stopped with the other workers (see startBackgroundWork). */
  scheduleWorker: ScheduleWorker;
}

/**
 * Makes the domain objects the handlers need, starts the schedule worker, then the consumer
 * groups: the suppression markers', the projections', the delivery reports', the triggers' and the
 * batch sends'.
 */
export async function startConsumers(
  config: MailerConfig,
  logger: Logger,
  { bus, relay, templates }: Pick<Infrastructure, 'bus' | 'relay' | 'templates'>,
  stores: Stores,
  teardown: Teardown,
): Promise<MailerDomain> {
  const { catalog, store, markers, suppressions, retries, erasuresDone, lists, rollups, attachments, schedule } = stores;
  // The bus is made by connectInfrastructure, and its close registered here, after the stores'
  // undo and before the server's: the consumers stop (their messages in hand finished) and the
  // publisher flushes once the server has closed, and before the rollups' last flush, the relay,
  // the template workers and the database, which their handlers use.
  teardown.add(() => bus.close());
  await watchMarkers(bus, suppressions, markers, logger);

  if (!config.SECRETS_KEY) logger.warn('SECRETS_KEY is not set: DKIM keys sealed by the gateway cannot be opened (development only)');
  if (!config.TRACKING_SECRET)
    logger.warn('TRACKING_SECRET is not set: tracking links are signed with a random key the gateway does not know');
  const trackingSecret = config.TRACKING_SECRET || randomBytes(32).toString('hex');
  const deliverer = new Deliverer({
    catalog,
    secrets: new SecretBox(config.SECRETS_KEY || undefined),
    tokens: new TrackingTokens(trackingSecret, { ttlMs: config.TRACKING_TOKEN_TTL_DAYS * 24 * 60 * 60 * 1000 }),
    returnPath: new ReturnPathTokens(trackingSecret),
    relay,
    suppressionsOf: (projectId, addresses, acceptedAt) =>
      Promise.all(addresses.map((email) => suppressions.reasonFor({ projectId, email, acceptedAt }))),
    publicBaseUrl: config.PUBLIC_BASE_URL,
    catalogWaitMs: config.MAILER_CATALOG_WAIT_MS,
    profiles: new UsersClient(
      config.USERS_URL,
      new InternalTokens(internalApiSecret(config.INTERNAL_API_SECRET, logger), 'mailer'),
      logger,
    ),
    templates,
    runPatienceMs: config.TEMPLATE_RUN_PATIENCE_MS,
    attachments,
    turns: new LoopTurns(LOOP_TURN_BUDGET_MS),
  });
  const policy = { maxAttempts: config.MAILER_MAX_ATTEMPTS, baseMs: config.MAILER_RETRY_BASE_MS, maxMs: config.MAILER_RETRY_MAX_MS };
  const timeline = new Timeline(store, bus.publisher, retries, policy, statusReached(rollups, lists), (error, count) =>
    logger.warn('could not keep the rendered emails of some messages', { error, count }),
  );

  const scheduled = new ScheduledSends({ store, queue: schedule, lists, rollups, timeline });
  const triggerDelivery = new TriggerDelivery({ store, suppressions, retries, deliverer, timeline, lists, rollups, scheduled });
  // Before the consumers, whose start waits for their groups (after a crash, until the broker drops
  // the dead member): what is due goes on time whatever the bus's groups are doing.
  const scheduleWorker = new ScheduleWorker({
    queue: schedule,
    store,
    timeline,
    deliver: triggerDelivery.resume,
    logger,
    intervalMs: config.MAILER_SCHEDULE_POLL_MS,
    leaseMs: config.MAILER_SCHEDULE_LEASE_MS,
  });
  scheduleWorker.start();
  // Its place in the stop order is with the other workers (startBackgroundWork registers it there);
  // this one stops it when a later step fails, and does nothing after that first stop.
  teardown.add(() => scheduleWorker.stop());

  const erasure = new MailerErasure({ store, lists, suppressions, retries, schedule, done: erasuresDone, attachments });
  const { suppressionList, sendPath, engagements, feedback } = feedbackPath(
    { store, timeline, suppressions, lists, rollups, publisher: bus.publisher },
    config,
  );
  // Projections first, so triggers find the catalog; they are separate groups so a burst of triggers never delays them.
  await bus.consume({
    groupId: ConsumerGroups.mailerProjections,
    handlers: [...catalogHandlers(catalog), ...peopleHandlers(suppressionList, erasure, engagements, bus.publisher)],
  });
  // Delivery reports in a group of their own: while they wait for the send path, the catalog and opens do not.
  // Keyed by message, so partitions side by side keep each message's reports in order.
  await bus.consume({
    groupId: ConsumerGroups.mailerFeedback,
    partitionsConsumedConcurrently: config.KAFKA_TOPIC_PARTITIONS,
    handlers: feedbackHandlers(feedback),
  });
  // While single sends are being delivered, batch messages go at a bounded rate (BulkLane).
  const singles = new SendPathPriority({ whileSendingPerSecond: config.MAILER_BULK_RATE_WHILE_SENDING });
  // A run is delivered side by side and committed as a whole: a few times the SMTP pool keeps
  // the relay busy without letting one run's slowest mail hold back hundreds of others.
  const maxRunSize = config.SMTP_POOL_CONNECTIONS * 4;
  await bus.consume({
    groupId: ConsumerGroups.mailerTriggers,
    gatherFetches: 'send-path',
    handlers: emailCommandHandlers(triggerDelivery, { sendPath, singles }, erasure, suppressionList),
    partitionsConsumedConcurrently: config.KAFKA_TOPIC_PARTITIONS,
    maxRunSize,
  });
  // One run at a time: a single send waits behind one run of batch messages at most. A batch's
  // first message may wait for its fetch to gather more (off the send path), and an idle lane
  // fetches a few times a second, not fifty.
  const bulkLane = new BulkLane({
    singles,
    singlesPassed: (time) => bus.groupHasPassed(ConsumerGroups.mailerTriggers, [Topics.EmailCommands], time),
  });
  // Closed just before the bus: a run still waiting for the single-send lane is refused, not held while the groups stop.
  teardown.add(() => bulkLane.close());
  await bus.consume({
    groupId: ConsumerGroups.mailerBulk,
    gatherFetches: 'off-send-path',
    handlers: bulkHandlers(triggerDelivery, sendPath, bulkLane),
    partitionsConsumedConcurrently: 1,
    maxRunSize,
  });
  return { deliverer, timeline, scheduled, scheduleWorker };
}
