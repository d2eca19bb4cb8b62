import { Counter, Gauge, type Registry } from 'prom-client';

/**
 * What a process's consumers tell Prometheus: how far each is behind on the partitions it holds,
 * and how often its groups rebalanced. One set per Bus, registered on the service's registry.
 */
export class ConsumerMetrics {
  /** Per group and partition held: messages between the last one handled and the partition's end. */
  private readonly lag = new Map<string, Map<string, number>>();
  readonly rebalances: Counter<'group'>;
  readonly heartbeatFailures: Counter<'group'>;

  constructor(registry: Registry) {
    const lag = this.lag;
    new Gauge({
      name: 'postbus_consumer_lag',
      help: 'Messages waiting behind what this process has handled, on the partitions it holds, per consumer group',
      labelNames: ['group'],
      registers: [registry],
      collect() {
        this.reset();
        for (const [group, partitions] of lag)
          this.set(
            { group },
            [...partitions.values()].reduce((sum, n) => sum + n, 0),
          );
      },
    });
    this.rebalances = new Counter({
      name: 'postbus_consumer_rebalances_total',
      help: 'Times this process (re)joined a consumer group and got its partitions assigned',
      labelNames: ['group'],
      registers: [registry],
    });
    this.heartbeatFailures = new Counter({
      name: 'postbus_consumer_heartbeat_failures_total',
      help: 'Heartbeats the group coordinator refused while a batch was handled (a rebalance, or the member no longer known)',
      labelNames: ['group'],
      registers: [registry],
    });
  }

  /** The partition's lag as last seen: its end (high watermark) minus the next offset to handle. */
  setLag(group: string, topic: string, partition: number, lag: number): void {
    let partitions = this.lag.get(group);
    if (!partitions) this.lag.set(group, (partitions = new Map<string, number>()));
    partitions.set(`${topic}:${partition}`, Math.max(0, lag));
  }

  /** A new assignment: the partitions held before may be another member's now. */
  joined(group: string): void {
    this.lag.get(group)?.clear();
    this.rebalances.inc({ group });
  }
}
