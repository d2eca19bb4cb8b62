import { Kafka, logLevel, type Admin, type SASLOptions } from 'kafkajs';
import type { KafkaConnection } from '@postbus/bus';
import type { Probe, ProbeOutcome } from './probe';
import { reason, verdict } from './probe';

/**
 * Kafka's metadata (the cluster answers and has brokers) and the lag of each consumer group
 * (messages waiting behind its committed offsets). Without a broker the lag is unknown, not fine.
 */
export function kafkaProbe(options: {
  kafkaComponentId: string;
  lagComponentId: string;
  connection: KafkaConnection;
  groups: string[];
  lagDegraded: number;
  intervalMs: number;
  timeoutMs: number;
}): Probe {
  const kafka = new Kafka({
    clientId: 'postbus-status',
    brokers: options.connection.brokers,
    ...(options.connection.ssl ? { ssl: true } : {}),
    ...(options.connection.sasl ? { sasl: options.connection.sasl as SASLOptions } : {}),
    connectionTimeout: Math.min(3000, options.timeoutMs),
    requestTimeout: options.timeoutMs,
    // The probe retries on its own pace: one failed check is one verdict, not a minute of retries.
    retry: { retries: 0 },
    logLevel: logLevel.NOTHING,
  });
  let admin: Admin | undefined;

  const lagOf = async (connected: Admin, groupId: string): Promise<number> => {
    const committed = await connected.fetchOffsets({ groupId });
    let lag = 0;
    for (const { topic, partitions } of committed) {
      const ends = await connected.fetchTopicOffsets(topic);
      for (const partition of partitions) {
        const end = Number(ends.find((e) => e.partition === partition.partition)?.high ?? 0);
        const at = Number(partition.offset);
        // -1: nothing committed yet; the group reads from the end (latest) or has not started.
        if (at >= 0) lag += Math.max(0, end - at);
      }
    }
    return lag;
  };

  return {
    name: 'kafka',
    componentIds: [options.kafkaComponentId, options.lagComponentId],
    intervalMs: options.intervalMs,
    async run(): Promise<ProbeOutcome[]> {
      const started = performance.now();
      let connected: Admin;
      try {
        admin ??= kafka.admin();
        connected = admin;
        await connected.connect();
        const cluster = await connected.describeCluster();
        const latency = performance.now() - started;
        if (cluster.brokers.length === 0) throw new Error('no brokers in the metadata');
        const kafkaCheck = verdict(
          options.kafkaComponentId,
          'operational',
          `${cluster.brokers.length} broker(s), controller ${cluster.controller ?? 'none'}`,
          latency,
        );
        try {
          const lags = await Promise.all(options.groups.map(async (group) => [group, await lagOf(connected, group)] as const));
          const behind = lags.filter(([, lag]) => lag > options.lagDegraded);
          const worst = Math.max(0, ...lags.map(([, lag]) => lag));
          const lagCheck =
            behind.length > 0
              ? verdict(options.lagComponentId, 'degraded_performance', `behind: ${behind.map(([g, l]) => `${g} ${l}`).join(', ')}`)
              : verdict(options.lagComponentId, 'operational', `largest lag ${worst} message(s) over ${lags.length} group(s)`);
          return [kafkaCheck, lagCheck];
        } catch (error) {
          return [kafkaCheck, { componentId: options.lagComponentId, at: new Date(), unknown: `lag not readable: ${reason(error)}` }];
        }
      } catch (error) {
        const failed = admin;
        admin = undefined;
        await failed?.disconnect().catch(() => undefined);
        return [
          verdict(options.kafkaComponentId, 'major_outage', `Kafka unreachable: ${reason(error)}`),
          { componentId: options.lagComponentId, at: new Date(), unknown: 'Kafka is unreachable, so the lag cannot be read' },
        ];
      }
    },
    async close() {
      await admin?.disconnect().catch(() => undefined);
    },
  };
}
