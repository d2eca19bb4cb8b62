import { Kafka, logLevel, type Admin } from 'kafkajs';
import { Registry } from 'prom-client';
import { Topics } from '@postbus/contracts';
import { sleep, uniqueName, waitFor } from '@postbus/testing';
import { consumerGroupLag, defineHandler, GroupTimings, type Bus, type BatchItem } from '@postbus/bus';
import { brokers, testBus } from './test-bus';

/** A bus of its own namespace with one partition per topic, its consumers reporting to `metrics`. */
async function busWith(namespace: string, metrics?: Registry): Promise<Bus> {
  const bus = testBus(namespace, metrics ? { metrics } : {});
  await bus.ensureTopics([{ topic: Topics.UserCommands }]);
  await bus.publisher.connect();
  return bus;
}

/** `count` creates, each under its own key, or all under `key` (one user's commands: handled in order). */
const creates = async (bus: Bus, count: number, key?: string) => {
  for (let i = 0; i < count; i++)
    await bus.publisher.publish(Topics.UserCommands, 'user.create', key ?? `p:${i}`, { projectId: 'p', email: `u${i}@example.com` });
};

const metricValue = async (registry: Registry, name: string): Promise<number> => {
  const metric = (await registry.getMetricsAsJSON()).find((m) => m.name === name);
  return (metric?.values ?? []).reduce((sum, v) => sum + v.value, 0);
};

describe('a consumer under work that outlasts its session', () => {
  let admin: Admin;

  beforeAll(async () => {
    admin = new Kafka({ brokers, logLevel: logLevel.NOTHING }).admin();
    await admin.connect();
  });

  afterAll(async () => {
    await admin?.disconnect();
  });

  it('a run that takes longer than the session keeps its member in the group, is handled once and committed', async () => {
    const namespace = uniqueName('slow-run');
    const metrics = new Registry();
    const bus = await busWith(namespace, metrics);
    try {
      await creates(bus, 40);
      const runs: number[] = [];
      await bus.consume({
        groupId: 'slow-run',
        handlers: [
          defineHandler({
            topic: Topics.UserCommands,
            type: 'user.create',
            handle: () => Promise.resolve(),
            async handleBatch(items: BatchItem<'user.create'>[]) {
              runs.push(items.length);
              // The first run outlasts the session: a member that heartbeats only between runs is evicted here.
              if (runs.length === 1) await sleep(GroupTimings.sessionTimeoutMs + 4_000);
              return [];
            },
          }),
        ],
      });
      await waitFor(
        async () => (await consumerGroupLag(admin, `slow-run.${namespace}`)).total === 0 && runs.reduce((a, b) => a + b, 0) >= 40,
        {
          timeoutMs: GroupTimings.sessionTimeoutMs + 20_000,
          intervalMs: 500,
          what: 'the group to commit all 40 messages',
        },
      );
      await sleep(2_000); // time for a redelivery to show, were there one
      expect(runs.reduce((a, b) => a + b, 0)).toBe(40);
      expect(await metricValue(metrics, 'postbus_consumer_rebalances_total')).toBe(1);
      expect(await metricValue(metrics, 'postbus_consumer_heartbeat_failures_total')).toBe(0);
      expect(await metricValue(metrics, 'postbus_consumer_lag')).toBe(0);
    } finally {
      await bus.close();
    }
  }, 90_000);

  it('messages left to one-by-one handling are committed as they are stored, not when the run ends', async () => {
    const namespace = uniqueName('one-by-one');
    const bus = await busWith(namespace);
    try {
      await creates(bus, 30, 'p:one-user');
      let handled = 0;
      await bus.consume({
        groupId: 'one-by-one',
        handlers: [
          defineHandler({
            topic: Topics.UserCommands,
            type: 'user.create',
            async handle() {
              await sleep(200);
              handled++;
            },
            handleBatch: (items) => Promise.resolve(items.map((_, i) => i)),
          }),
        ],
      });
      // One key's 30 messages at 200 ms, in order: the run lasts 6 s, and its first messages are committed well before.
      const midway = await waitFor(
        async () => {
          const lag = (await consumerGroupLag(admin, `one-by-one.${namespace}`)).total;
          return lag > 0 && lag <= 20 ? { lag, handled } : undefined;
        },
        { timeoutMs: 20_000, intervalMs: 100, what: 'a commit within the run' },
      );
      expect(midway.handled).toBeLessThan(30);
      await waitFor(async () => (await consumerGroupLag(admin, `one-by-one.${namespace}`)).total === 0, {
        timeoutMs: 20_000,
        what: 'the whole run committed',
      });
      expect(handled).toBe(30);
    } finally {
      await bus.close();
    }
  }, 60_000);

  it('messages left to one-by-one handling go side by side across keys, and in order within a key', async () => {
    const namespace = uniqueName('side-by-side');
    const bus = await busWith(namespace);
    try {
      // Two users, 20 commands each, interleaved in the partition.
      for (let i = 0; i < 20; i++) {
        for (const user of ['a', 'b'])
          await bus.publisher.publish(Topics.UserCommands, 'user.create', `p:${user}`, {
            projectId: 'p',
            email: `${user}${i}@example.com`,
          });
      }
      const seen: Record<string, number[]> = { a: [], b: [] };
      let inFlight = 0;
      let mostInFlight = 0;
      await bus.consume({
        groupId: 'side-by-side',
        handlers: [
          defineHandler({
            topic: Topics.UserCommands,
            type: 'user.create',
            async handle(data) {
              mostInFlight = Math.max(mostInFlight, ++inFlight);
              await sleep(20 + Math.random() * 30);
              seen[data.email[0]!]!.push(Number(data.email.slice(1).split('@')[0]));
              inFlight--;
            },
            handleBatch: (items) => Promise.resolve(items.map((_, i) => i)),
          }),
        ],
      });
      await waitFor(async () => (await consumerGroupLag(admin, `side-by-side.${namespace}`)).total === 0, {
        timeoutMs: 20_000,
        what: 'all 40 committed',
      });
      const inOrder = Array.from({ length: 20 }, (_, i) => i);
      expect(seen).toEqual({ a: inOrder, b: inOrder });
      expect(mostInFlight).toBe(2);
    } finally {
      await bus.close();
    }
  }, 60_000);
});
