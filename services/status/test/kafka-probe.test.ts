import { Kafka, logLevel, type Admin, type Producer } from 'kafkajs';
import { defaultKafkaBrokers, uniqueName, waitFor } from '@postbus/testing';
import { kafkaProbe } from '../src/clients/probes/kafka-probe';
import type { ProbeOutcome } from '../src/domain/ports';

const brokers = defaultKafkaBrokers().split(',');

describe('the consumer-lag check against the broker', () => {
  let admin: Admin;
  let producer: Producer;
  const topic = uniqueName('lag-probe');
  const stuckGroup = uniqueName('stuck-group');
  const drainingGroup = uniqueName('draining-group');

  beforeAll(async () => {
    const kafka = new Kafka({ brokers, logLevel: logLevel.NOTHING });
    admin = kafka.admin();
    await admin.connect();
    await admin.createTopics({ topics: [{ topic, numPartitions: 1 }], waitForLeaders: true });
    // The broker may still answer UNKNOWN_TOPIC_OR_PARTITION for a moment (it did on a loaded
    // machine), and setOffsets does not retry that: wait until its metadata has the leader.
    await waitFor(
      async () => {
        const known = await admin.fetchTopicMetadata({ topics: [topic] }).catch(() => undefined);
        return known?.topics[0]?.partitions.some((p) => p.leader >= 0) || undefined;
      },
      { what: `the broker to know ${topic}` },
    );
    producer = kafka.producer();
    await producer.connect();
    await producer.send({ topic, messages: Array.from({ length: 100 }, (_, i) => ({ value: String(i) })) });
    for (const groupId of [stuckGroup, drainingGroup])
      await admin.setOffsets({ groupId, topic, partitions: [{ partition: 0, offset: '0' }] });
  });

  afterAll(async () => {
    await producer?.disconnect();
    await admin?.deleteGroups([stuckGroup, drainingGroup]).catch(() => undefined);
    await admin?.deleteTopics({ topics: [topic] }).catch(() => undefined);
    await admin?.disconnect();
  });

  const probeOf = (groups: string[]) =>
    kafkaProbe({
      kafkaComponentId: 'infrastructure.kafka',
      lagComponentId: 'infrastructure.consumer-lag',
      connection: { brokers },
      groups,
      lagDegraded: 50,
      stuckChecks: 3,
      intervalMs: 1000,
      timeoutMs: 5000,
    });
  const lagOutcome = (outcomes: ProbeOutcome[]) => outcomes.find((o) => o.componentId === 'infrastructure.consumer-lag')!;

  it('names a group whose offsets stand still while messages wait as stuck, after the set number of checks', async () => {
    const probe = probeOf([stuckGroup]);
    try {
      const first = lagOutcome(await probe.run());
      expect(first).toMatchObject({ status: 'degraded_performance', detail: `behind: ${stuckGroup} 100` });
      await probe.run();
      await probe.run();
      const stuck = lagOutcome(await probe.run());
      expect(stuck).toMatchObject({ status: 'partial_outage', detail: `stuck: ${stuckGroup} 100 waiting, no progress in 3 checks` });

      // It moves again: behind, no longer stuck.
      await admin.setOffsets({ groupId: stuckGroup, topic, partitions: [{ partition: 0, offset: '10' }] });
      expect(lagOutcome(await probe.run())).toMatchObject({ status: 'degraded_performance', detail: `behind: ${stuckGroup} 90` });
    } finally {
      await probe.close?.();
    }
  });

  it('a group that drains a large backlog is behind, never stuck, and operational once caught up', async () => {
    const probe = probeOf([drainingGroup]);
    try {
      for (let offset = 5; offset <= 30; offset += 5) {
        await admin.setOffsets({ groupId: drainingGroup, topic, partitions: [{ partition: 0, offset: String(offset) }] });
        expect(lagOutcome(await probe.run())).toMatchObject({ status: 'degraded_performance' });
      }
      await admin.setOffsets({ groupId: drainingGroup, topic, partitions: [{ partition: 0, offset: '100' }] });
      expect(lagOutcome(await probe.run())).toMatchObject({ status: 'operational', detail: 'largest lag 0 message(s) over 1 group(s)' });
    } finally {
      await probe.close?.();
    }
  });
});
