import { parse, toSeconds } from 'iso8601-duration';
import { ConfigResourceTypes, type Admin, type Kafka } from 'kafkajs';
import type { Registry } from 'prom-client';
import { dlqOf, PersonalDataTopics, topicName } from '@postbus/contracts';
import type { Logger } from '@postbus/logger';
import { MessageConsumer, type ConsumerOptions, type FetchGathering, type FetchSettings } from './consumer';
import { createKafka, kafkaConnection, type KafkaConnection, type KafkaSettings } from './kafka';
import { consumerGroupHasPassed } from './lag';
import { ConsumerMetrics } from './metrics';
import { Publisher } from './publisher';
import { TopicReader, type FoundRecord, type RecordLookup } from './topic-reader';

export {
  defineHandler,
  GroupTimings,
  MessageConsumer,
  type BatchItem,
  type FetchGathering,
  type Handler,
  type MessageContext,
  type RetryPolicy,
} from './consumer';
export { Publisher, type PublishOptions } from './publisher';
export { kafkaConnection, type KafkaConnection, type KafkaSettings } from './kafka';
export { consumerGroupHasPassed, consumerGroupLag, type GroupLag } from './lag';
export { BusUnavailableError, NotYetKnownError, PoisonMessageError, isTransientError } from './errors';
export { erasureParticipant } from './erasure';
export { SendPathPriority, type SendPathPriorityOptions } from './send-path-priority';
export type { FoundRecord, RecordLookup } from './topic-reader';

/** A TopicReader as a service uses it: topics by their names in the contracts. */
export interface Reader {
  find: (lookup: RecordLookup) => Promise<FoundRecord | undefined>;
}
export { knownUserHandlers, type UserDirectory } from './known-users';
export { fromKafkaMessage, toKafkaHeaders, newEnvelope, type Envelope } from './envelope';

export interface BusOptions extends KafkaConnection {
  /** Names this process to the broker and is the CloudEvents source, e.g. "postbus/users". */
  service: string;
  logger: Logger;
  /** Suffix of topic and group names, so that test runs do not share them. */
  namespace?: string;
  partitions: number;
  replicationFactor: number;
  ackTimeoutMs?: number;
  /** Idempotent producers writing side by side; see Publisher. */
  producerLanes?: number;
  /**
   * The fetch settings of the consumers that gather fetches, by where they stand (see
   * ConsumerOptions.gatherFetches), and of the others (`idle`); kafkajs's defaults (5 s, 1 byte) when absent.
   */
  fetch?: Record<FetchGathering | 'idle', FetchSettings>;
  /** retention.ms of the topics that carry personal data and of their DLQs (contracts' PersonalDataTopics); the broker's default when absent. */
  piiRetentionMs?: number;
  /** The service's metrics registry: its consumers report their lag and rebalances there. */
  metrics?: Registry;
  /** How long creating topics waits for KAFKA_REPLICATION_FACTOR brokers to be there (3 minutes when absent). */
  brokerWaitMs?: number;
}

export interface TopicSpec {
  topic: string;
  /** Log-compacted topics keep the latest value per key (e.g. the catalog). */
  compacted?: boolean;
  /** How long messages are kept (retention.ms); the broker's default when absent. */
  retentionMs?: number;
  /** Partitions when created (the bus's `partitions` when absent): one for a topic whose one consumer must tell it hears all of it. */
  partitions?: number;
}

/** True when topic creation failed only because the topics exist now. */
function createdElsewhere(error: unknown): boolean {
  const nested = (error as { errors?: Array<{ type?: string; error?: { type?: string } }> }).errors;
  const types = nested ? nested.map((e) => e.type ?? e.error?.type) : [(error as { type?: string }).type];
  return types.length > 0 && types.every((t) => t === 'TOPIC_ALREADY_EXISTS');
}

/** Bus options from a service's configuration. */
export function busOptions(config: KafkaSettings): Omit<BusOptions, 'service' | 'logger'> {
  return {
    ...kafkaConnection(config),
    namespace: config.KAFKA_NAMESPACE,
    partitions: config.KAFKA_TOPIC_PARTITIONS,
    replicationFactor: config.KAFKA_REPLICATION_FACTOR,
    producerLanes: config.KAFKA_PRODUCER_LANES,
    fetch: {
      'send-path': { maxWaitTimeInMs: config.KAFKA_FETCH_MAX_WAIT_MS, minBytes: config.KAFKA_FETCH_MIN_BYTES },
      'off-send-path': { maxWaitTimeInMs: config.KAFKA_BACKGROUND_FETCH_MAX_WAIT_MS, minBytes: config.KAFKA_BACKGROUND_FETCH_MIN_BYTES },
      idle: { maxWaitTimeInMs: config.KAFKA_IDLE_FETCH_MAX_WAIT_MS, minBytes: 1 },
    },
    piiRetentionMs: Math.round(toSeconds(parse(config.PII_TOPIC_RETENTION)) * 1000),
  };
}

interface WantedTopic {
  name: string;
  compacted: boolean;
  retentionMs: number | undefined;
  partitions?: number | undefined;
}

/** The configuration a topic is created with, and kept at. */
const topicConfig = (t: WantedTopic, replicationFactor: number) => [
  { name: 'cleanup.policy', value: t.compacted ? 'compact' : 'delete' },
  { name: 'min.insync.replicas', value: String(Math.min(2, replicationFactor)) },
  ...(t.retentionMs !== undefined ? [{ name: 'retention.ms', value: String(t.retentionMs) }] : []),
];

/** The bus of one process: topic administration, one batching publisher and its consumers. */
export class Bus {
  readonly kafka: Kafka;
  readonly publisher: Publisher;
  private readonly consumers: MessageConsumer[] = [];
  private readonly readers: TopicReader[] = [];
  private readonly consumerMetrics: ConsumerMetrics | undefined;
  private progressAdmin: Promise<Admin> | undefined;

  constructor(private readonly options: BusOptions) {
    this.kafka = createKafka(options, options.service.replace(/\W+/g, '-'), options.logger);
    this.consumerMetrics = options.metrics ? new ConsumerMetrics(options.metrics) : undefined;
    this.publisher = new Publisher(this.kafka, {
      source: options.service,
      logger: options.logger,
      resolveTopic: this.resolveTopic,
      ...(options.ackTimeoutMs ? { ackTimeoutMs: options.ackTimeoutMs } : {}),
      ...(options.producerLanes ? { lanes: options.producerLanes } : {}),
    });
  }

  readonly resolveTopic = (topic: string): string => topicName(topic, this.options.namespace);

  /** Creates the topics (and their DLQs) that do not exist yet, with the configured partitions; keeps the retention of those carrying personal data. */
  async ensureTopics(specs: TopicSpec[]): Promise<void> {
    const admin = this.kafka.admin();
    await admin.connect();
    try {
      const existing = new Set(await admin.listTopics());
      const wanted = specs.flatMap((s): WantedTopic[] => {
        // Personal data is kept for PII_TOPIC_RETENTION, in the topic and its DLQ alike; a topic's own retention comes first.
        const pii = PersonalDataTopics.has(s.topic) ? this.options.piiRetentionMs : undefined;
        return [
          {
            name: this.resolveTopic(s.topic),
            compacted: s.compacted ?? false,
            retentionMs: s.retentionMs ?? pii,
            partitions: s.partitions,
          },
          { name: dlqOf(this.resolveTopic(s.topic)), compacted: false, retentionMs: pii, partitions: s.partitions },
        ];
      });
      const missing = wanted.filter((t) => !existing.has(t.name));
      if (missing.length > 0) {
        await this.waitForBrokers(admin, this.options.brokerWaitMs);
        try {
          await admin.createTopics({
            // Our own wait below: kafkajs's fails when another process created a topic a moment ago.
            waitForLeaders: false,
            topics: missing.map((t) => ({
              topic: t.name,
              numPartitions: t.partitions ?? this.options.partitions,
              replicationFactor: this.options.replicationFactor,
              configEntries: topicConfig(t, this.options.replicationFactor),
            })),
          });
          this.options.logger.info('created topics', { topics: missing.map((t) => t.name) });
        } catch (error) {
          // Services starting side by side create the same topics: another one got there first.
          if (!createdElsewhere(error)) throw error;
        }
      }
      await this.waitForLeaders(
        admin,
        wanted.map((t) => t.name),
      );
      await this.keepRetention(
        admin,
        wanted.filter((t) => existing.has(t.name)),
      );
    } finally {
      await admin.disconnect();
    }
  }

  /**
   * Topics created before their retention was configured (or under another PII_TOPIC_RETENTION)
   * get it now; a topic that has it already is left alone, so services starting side by side
   * write nothing. AlterConfigs sets a topic's whole configuration, hence all of topicConfig.
   */
  private async keepRetention(admin: Admin, topics: WantedTopic[]): Promise<void> {
    const retained = topics.filter((t) => t.retentionMs !== undefined);
    if (retained.length === 0) return;
    const described = await admin.describeConfigs({
      includeSynonyms: false,
      resources: retained.map((t) => ({ type: ConfigResourceTypes.TOPIC, name: t.name, configNames: ['retention.ms'] })),
    });
    const current = new Map(
      described.resources.map((r) => [r.resourceName, r.configEntries.find((e) => e.configName === 'retention.ms')?.configValue]),
    );
    const stale = retained.filter((t) => current.get(t.name) !== String(t.retentionMs));
    if (stale.length === 0) return;
    await admin.alterConfigs({
      validateOnly: false,
      resources: stale.map((t) => ({
        type: ConfigResourceTypes.TOPIC,
        name: t.name,
        configEntries: topicConfig(t, this.options.replicationFactor),
      })),
    });
    this.options.logger.info('set the retention of existing topics', {
      topics: stale.map((t) => t.name),
      retentionMs: stale[0]?.retentionMs,
    });
  }

  /**
   * Topics are created with KAFKA_REPLICATION_FACTOR replicas, which a cluster still starting (or
   * with a broker down) cannot place: the broker refuses them. A service that starts beside its
   * brokers, as in a compose stack, waits for them instead of exiting.
   */
  private async waitForBrokers(admin: Admin, timeoutMs = 180_000): Promise<void> {
    const wanted = this.options.replicationFactor;
    const deadline = Date.now() + timeoutMs;
    let reported = -1;
    for (;;) {
      let seen = 0;
      try {
        seen = (await admin.describeCluster()).brokers.length;
      } catch (error) {
        if (Date.now() >= deadline) throw error;
      }
      if (seen >= wanted) return;
      if (Date.now() >= deadline)
        throw new Error(`${seen} Kafka broker(s) after ${timeoutMs / 1000} s; topics need ${wanted} (KAFKA_REPLICATION_FACTOR)`);
      if (seen !== reported) this.options.logger.info('waiting for Kafka brokers to create topics', { brokers: seen, needed: wanted });
      reported = seen;
      await new Promise((r) => setTimeout(r, 1000));
    }
  }

  /**
   * Waits until every broker knows every partition of the topics, each with a leader. A topic
   * created a moment ago (by this process or another) reaches the brokers one after another: one
   * may know it while another still answers UNKNOWN_TOPIC_OR_PARTITION, and kafkajs sends what
   * follows (describeConfigs, a group's offsets) to whichever broker it picks, some of them without
   * a retry. So each broker is asked, by a client whose only seed it is.
   */
  private async waitForLeaders(admin: Admin, topics: string[], timeoutMs = 30_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    const { brokers } = await admin.describeCluster();
    await Promise.all(brokers.map((b) => this.waitForLeadersOn(`${b.host}:${b.port}`, topics, deadline)));
  }

  private async waitForLeadersOn(broker: string, topics: string[], deadline: number): Promise<void> {
    const admin = createKafka(
      { ...this.options, brokers: [broker] },
      `${this.options.service.replace(/\W+/g, '-')}-topics`,
      this.options.logger,
    ).admin();
    try {
      for (;;) {
        try {
          await admin.connect();
          const { topics: metadata } = await admin.fetchTopicMetadata({ topics });
          if (metadata.every((t) => t.partitions.length > 0 && t.partitions.every((p) => p.leader >= 0))) return;
        } catch (error) {
          if (Date.now() >= deadline) throw error;
        }
        if (Date.now() >= deadline) throw new Error(`broker ${broker} has topics without leaders: ${topics.join(', ')}`);
        await new Promise((r) => setTimeout(r, 200));
      }
    } finally {
      await admin.disconnect().catch(() => undefined);
    }
  }

  /** Starts a consumer group member running the handlers; the group name gets the namespace too. */
  async consume(options: Omit<ConsumerOptions, 'publisher' | 'resolveTopic' | 'logger' | 'fetch' | 'metrics'>): Promise<MessageConsumer> {
    const consumer = new MessageConsumer(this.kafka, {
      ...options,
      ...(this.consumerMetrics ? { metrics: this.consumerMetrics } : {}),
      groupId: topicName(options.groupId, this.options.namespace),
      ...(this.options.fetch ? { fetch: this.options.fetch[options.gatherFetches ?? 'idle'] } : {}),
      logger: this.options.logger,
      publisher: this.publisher,
      resolveTopic: this.resolveTopic,
    });
    const joined = consumer.whenJoined();
    try {
      await consumer.start();
    } catch (error) {
      joined.catch(() => undefined); // the start failure is the one to report
      throw error;
    }
    await joined;
    this.consumers.push(consumer);
    return consumer;
  }

  /** The process's admin client for progress questions (lazily connected, kept until close). */
  private readonly admin = async (): Promise<Admin> => {
    this.progressAdmin ??= (async () => {
      const admin = this.kafka.admin();
      await admin.connect();
      return admin;
    })();
    return this.progressAdmin.catch((error: unknown) => {
      this.progressAdmin = undefined;
      throw error;
    });
  };

  /**
   * Whether a consumer group (the namespace applied) has handled every message published to the
   * topics before `time`: e.g. whether a create that a waiting command depends on can still come.
   */
  async groupHasPassed(groupId: string, topics: string[], time: Date): Promise<boolean> {
    return consumerGroupHasPassed(await this.admin(), this.resolveTopic(groupId), topics.map(this.resolveTopic), time);
  }

  /** Whether a consumer group (the namespace applied) has handled the record at `offset` of a topic's partition. */
  async groupHasRead(groupId: string, topic: string, partition: number, offset: string): Promise<boolean> {
    const committed = await (await this.admin()).fetchOffsets({ groupId: this.resolveTopic(groupId), topics: [this.resolveTopic(topic)] });
    const at = committed[0]?.partitions.find((p) => p.partition === partition)?.offset ?? '-1';
    return BigInt(at) > BigInt(offset);
  }

  /**
   * Starts a reader of the topics' records by time (see TopicReader), in a consumer group of its
   * own named after this process (the namespace applied); it is stopped with the bus.
   */
  async startReader(groupId: string, topics: string[], budgetMs?: number): Promise<Reader> {
    const reader = new TopicReader(this.kafka, {
      groupId: topicName(groupId, this.options.namespace),
      topics: topics.map(this.resolveTopic),
      admin: this.admin,
      ...(budgetMs !== undefined ? { budgetMs } : {}),
    });
    await reader.start();
    this.readers.push(reader);
    return {
      find: (lookup) => reader.find({ ...lookup, topic: this.resolveTopic(lookup.topic) }),
    };
  }

  /** Stops consuming (the message in hand finishes), then flushes and closes the publisher. */
  async close(): Promise<void> {
    await Promise.all([...this.consumers.map((c) => c.stop()), ...this.readers.map((r) => r.stop())]);
    await this.progressAdmin?.then((admin) => admin.disconnect()).catch(() => undefined);
    await this.publisher.close();
  }
}
