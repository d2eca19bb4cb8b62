import { Kafka, logLevel, type Admin, type SASLOptions } from 'kafkajs';
import { consumerGroupLag, type GroupLag, type KafkaConnection } from '@postbus/bus';
import type { Probe, ProbeOutcome } from '../../domain/ports';
import { reason, verdict } from './probe';

/**
 * Kafka's metadata (the cluster answers and has brokers) and the lag of each consumer group
 * (messages waiting behind its committed offsets). A group whose committed offsets have not moved
 * for `stuckChecks` checks in a row while messages wait is stuck, which is worse than behind: a
 * large lag that shrinks is a backlog draining, one that never moves is work nobody does (a
 * group that keeps pace with its input holds its lag steady, so its offsets are what tell).
 * Without a broker the lag is unknown, not fine.
 */
export function kafkaProbe(options: {
  kafkaComponentId: string;
  lagComponentId: string;
  connection: KafkaConnection;
  groups: string[];
  lagDegraded: number;
  stuckChecks: number;
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

  /** Per group: its committed offsets at the last check, and for how many checks in a row they stood still while messages waited. */
  const progress = new Map<string, { committed: number; still: number }>();
  const stillFor = (lag: GroupLag): number => {
    const committed = lag.partitions.reduce((sum, p) => sum + Math.max(0, p.committed), 0);
    const before = progress.get(lag.groupId);
    const still = lag.total > 0 && before?.committed === committed ? before.still + 1 : 0;
    progress.set(lag.groupId, { committed, still });
    return still;
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
          const lags = await Promise.all(options.groups.map((group) => consumerGroupLag(connected, group)));
          const stuck = lags.filter((lag) => stillFor(lag) >= options.stuckChecks);
          const behind = lags.filter((lag) => lag.total > options.lagDegraded);
          const worst = Math.max(0, ...lags.map((lag) => lag.total));
          const lagCheck =
            stuck.length > 0
              ? verdict(
                  options.lagComponentId,
                  'partial_outage',
                  `stuck: ${stuck.map((l) => `${l.groupId} ${l.total}`).join(', ')} waiting, no progress in ${options.stuckChecks} checks`,
                )
              : behind.length > 0
                ? verdict(
                    options.lagComponentId,
                    'degraded_performance',
                    `behind: ${behind.map((l) => `${l.groupId} ${l.total}`).join(', ')}`,
                  )
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
