import { ConfigResourceTypes, Kafka, logLevel } from 'kafkajs';
import { Topics } from '@postbus/contracts';
import { createLogger } from '@postbus/logger';
import { isDeepStrictEqual } from 'node:util';
import { defaultKafkaBrokers, sleep, uniqueName } from '@postbus/testing';
import { Bus } from '@postbus/bus';

const SEVEN_DAYS_MS = 7 * 24 * 3600 * 1000;
const brokers = defaultKafkaBrokers().split(',');
const logger = createLogger({ service: 'bus-test', level: 'error' });

const busIn = (namespace: string, piiRetentionMs?: number) =>
  new Bus({
    brokers,
    service: 'postbus/bus-test',
    logger,
    namespace,
    partitions: 1,
    replicationFactor: 1,
    ...(piiRetentionMs !== undefined ? { piiRetentionMs } : {}),
  });

type Retention = Record<string, { value: string | undefined; own: boolean }>;

/** retention.ms as the broker reports it for each topic, and whether it is the topic's own setting. */
async function retentionOf(topics: string[]): Promise<Retention> {
  const admin = new Kafka({ brokers, logLevel: logLevel.NOTHING }).admin();
  await admin.connect();
  try {
    const { resources } = await admin.describeConfigs({
      includeSynonyms: false,
      resources: topics.map((name) => ({ type: ConfigResourceTypes.TOPIC, name, configNames: ['retention.ms'] })),
    });
    return Object.fromEntries(
      resources.map((r) => {
        const entry = r.configEntries.find((e) => e.configName === 'retention.ms');
        return [r.resourceName, { value: entry?.configValue, own: entry?.isDefault === false }];
      }),
    );
  } finally {
    await admin.disconnect();
  }
}

/**
 * retention.ms once the broker shows `expected`, or what it shows after 10 s. A broker applies an
 * AlterConfigs from the KRaft metadata log after the call has answered, so a describe right after it
 * may still read the previous value.
 */
async function retentionOnceApplied(topics: string[], expected: Retention): Promise<Retention> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const found = await retentionOf(topics);
    if (isDeepStrictEqual(found, expected) || Date.now() > deadline) return found;
    await sleep(100);
  }
}

describe('topics carrying personal data', () => {
  it('13.9 are created with PII_TOPIC_RETENTION as retention.ms, their DLQs too; the compacted catalog is not', async () => {
    const ns = uniqueName('ret');
    const bus = busIn(ns, SEVEN_DAYS_MS);
    await bus.ensureTopics([{ topic: Topics.EmailCommands }, { topic: Topics.UserEvents }, { topic: Topics.Catalog, compacted: true }]);
    const found = await retentionOf([
      `${Topics.EmailCommands}.${ns}`,
      `${Topics.EmailCommands}.${ns}.dlq`,
      `${Topics.UserEvents}.${ns}.dlq`,
      `${Topics.Catalog}.${ns}`,
    ]);
    expect(found[`${Topics.EmailCommands}.${ns}`]).toEqual({ value: String(SEVEN_DAYS_MS), own: true });
    expect(found[`${Topics.EmailCommands}.${ns}.dlq`]).toEqual({ value: String(SEVEN_DAYS_MS), own: true });
    expect(found[`${Topics.UserEvents}.${ns}.dlq`]).toEqual({ value: String(SEVEN_DAYS_MS), own: true });
    expect(found[`${Topics.Catalog}.${ns}`]?.own).toBe(false);
  });

  it('13.9 created before the retention existed get it at the next start, and keep their other settings', async () => {
    const ns = uniqueName('ret');
    await busIn(ns).ensureTopics([{ topic: Topics.PaymentEvents }]);
    const topic = `${Topics.PaymentEvents}.${ns}`;
    expect((await retentionOf([topic]))[topic]?.own).toBe(false);

    await busIn(ns, 3_600_000).ensureTopics([{ topic: Topics.PaymentEvents }]);
    const hourly = { [topic]: { value: '3600000', own: true }, [`${topic}.dlq`]: { value: '3600000', own: true } };
    expect(await retentionOnceApplied([topic, `${topic}.dlq`], hourly)).toEqual(hourly);
    // A second start with the same setting changes nothing; another setting replaces it.
    await busIn(ns, 3_600_000).ensureTopics([{ topic: Topics.PaymentEvents }]);
    await busIn(ns, 60_000).ensureTopics([{ topic: Topics.PaymentEvents }]);
    const minutely = { [topic]: { value: '60000', own: true } };
    expect(await retentionOnceApplied([topic], minutely)).toEqual(minutely);
  });
});

describe('creating topics on a cluster with fewer brokers than their replicas', () => {
  it('waits for the brokers, and says how many it saw and needs when they never come', async () => {
    const bus = new Bus({
      brokers,
      service: 'postbus/bus-test',
      logger,
      namespace: uniqueName('rf'),
      partitions: 1,
      replicationFactor: 2,
      brokerWaitMs: 3000,
    });
    const started = Date.now();
    await expect(bus.ensureTopics([{ topic: Topics.UserEvents }])).rejects.toThrow(
      '1 Kafka broker(s) after 3 s; topics need 2 (KAFKA_REPLICATION_FACTOR)',
    );
    expect(Date.now() - started).toBeGreaterThanOrEqual(3000);
  });
});
