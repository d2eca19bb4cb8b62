import { Kafka, logLevel, type Admin } from 'kafkajs';
import { dlqOf, topicName, Topics } from '@postbus/contracts';
import { connectDb } from '@postbus/db';
import {
  databaseName,
  defaultKafkaBrokers,
  defaultMongoUrl,
  ensureInfrastructure,
  startDnsServer,
  startSmtpSink,
  stopInfrastructure,
  uniqueName,
  type LocalComponent,
  type LocalDnsServer,
  type SmtpSink,
  type SystemService,
} from '@postbus/testing';
import { sinkChild } from './children';
import type { BenchRun } from './run';

/** What a benchmark run leaves on the broker, and how far the users service is behind on it. */
export class BusProbe {
  private readonly admin: Admin;
  private connected: Promise<void> | undefined;

  constructor(
    brokers: string[],
    private readonly namespace: string,
    /** The users service's consumer group as it is on the broker. */
    private readonly usersGroup = topicName('postbus-users', namespace),
    /** Other consumer groups of the run (as the services name them, without the namespace), deleted with it. */
    private readonly otherGroups: readonly string[] = [],
  ) {
    this.admin = new Kafka({ brokers, clientId: 'postbus-bench', logLevel: logLevel.NOTHING }).admin();
  }

  private connect(): Promise<void> {
    this.connected ??= this.admin.connect();
    return this.connected;
  }

  /** Commands on the user-commands topic that the users service has not consumed yet. */
  usersLag(): Promise<number> {
    return this.lag(this.usersGroup, Topics.UserCommands);
  }

  /**
   * Messages of `topic` (as the services name it, without the namespace) that the consumer group `groupId` (as it
   * is on the broker) has not committed yet; the services commit at most 500 ms after handling a message.
   */
  async lag(groupId: string, topic: string): Promise<number> {
    await this.connect();
    const name = topicName(topic, this.namespace);
    const [ends, [committed]] = await Promise.all([
      this.admin.fetchTopicOffsets(name),
      this.admin.fetchOffsets({ groupId, topics: [name] }),
    ]);
    const done = new Map((committed?.partitions ?? []).map((p) => [p.partition, Number(p.offset)]));
    return ends.reduce((lag, { partition, high, low }) => {
      const position = done.get(partition) ?? -1;
      return lag + Math.max(0, Number(high) - (position >= 0 ? position : Number(low)));
    }, 0);
  }

  /** Deletes the run's topics (with their DLQs) and its consumer groups. */
  async deleteNamespace(): Promise<string[]> {
    await this.connect();
    const suffixes = [`.${this.namespace}`, dlqOf(`.${this.namespace}`)];
    const topics = (await this.admin.listTopics()).filter((t) => suffixes.some((s) => t.endsWith(s)));
    if (topics.length > 0) await this.admin.deleteTopics({ topics });
    for (const group of [this.usersGroup, ...this.otherGroups.map((g) => topicName(g, this.namespace))]) {
      await this.admin.deleteGroups([group]).catch(() => undefined); // absent when its service never joined
    }
    return topics;
  }

  async close(): Promise<void> {
    if (this.connected) await this.admin.disconnect();
  }
}

/** Drops the databases the run's services created. */
export async function dropDatabases(url: string, names: string[]): Promise<void> {
  for (const dbName of names) {
    const connection = await connectDb({ url, dbName, connectTimeoutMs: 10_000 });
    try {
      await connection.dropDatabase();
    } finally {
      await connection.close();
    }
  }
}

/**
 * The end of every benchmark run, after its children stopped: the run's topics, consumer groups
 * and databases removed (unless BENCH_KEEP_DATA kept them), the probe closed, and the local Kafka
 * and MongoDB stopped when this run started them.
 */
export async function cleanUpRun(options: {
  keepData: boolean;
  probe: BusProbe;
  mongoUrl: string;
  databases: string[];
  infraStarted: LocalComponent[];
  progress: (message: string) => void;
}): Promise<void> {
  const { probe, progress } = options;
  if (!options.keepData) {
    progress('removing the topics, consumer groups and databases of this run (BENCH_KEEP_DATA=1 keeps them)');
    await probe.deleteNamespace().catch((error: unknown) => progress(`could not delete topics: ${String(error)}`));
    await dropDatabases(options.mongoUrl, options.databases).catch((error: unknown) =>
      progress(`could not drop databases: ${String(error)}`),
    );
  }
  await probe.close().catch(() => undefined);
  if (options.infraStarted.length > 0) {
    progress('stopping the Kafka and MongoDB this run started');
    stopInfrastructure(options.infraStarted);
  }
}

/**
 * One benchmark run's share of the local infrastructure: its id (the namespace of its topics, consumer groups and
 * databases), Kafka and MongoDB (started when absent), the DNS server and the SMTP sink. It remembers what it
 * started as it goes, so that `close`, in the run's `finally`, undoes what a run that failed half-way had done.
 */
export class RunInfrastructure {
  readonly runId: string;
  /** The brokers as KAFKA_BROKERS lists them, comma-separated. */
  readonly brokers: string = defaultKafkaBrokers();
  readonly mongoUrl: string = defaultMongoUrl();
  readonly bus: BusProbe;
  private readonly databases: string[];
  private infraStarted: LocalComponent[] = [];
  private dns: LocalDnsServer | undefined;

  /**
   * `prefix` starts the run id; `services` are those whose databases the run drops at the end, `groups` the consumer
   * groups it deletes besides the users service's (see BusProbe).
   */
  constructor(prefix: string, services: readonly SystemService[], groups: readonly string[]) {
    this.runId = uniqueName(prefix);
    this.databases = services.map((name) => databaseName(this.runId, name));
    this.bus = new BusProbe(this.brokers.split(','), this.runId, undefined, groups);
  }

  /** Checks Kafka and MongoDB, starting those that are not running (`close` stops them again). */
  async ensure(): Promise<void> {
    this.infraStarted = await ensureInfrastructure();
  }

  /** What a mail meets outside Postbus: the DNS server the sender domains are published in, and the SMTP sink (a child of `run`). */
  async startMailStandIns(run: BenchRun): Promise<{ dns: LocalDnsServer; sink: SmtpSink }> {
    const dns = await startDnsServer();
    this.dns = dns;
    const sink = await startSmtpSink({ LOG_LEVEL: 'warn' });
    run.started(sinkChild(sink));
    return { dns, sink };
  }

  /** After the run's children stopped: the DNS server closed, then everything cleanUpRun removes and stops. */
  async close(keepData: boolean, progress: (message: string) => void): Promise<void> {
    await this.dns?.close().catch(() => undefined);
    await cleanUpRun({
      keepData,
      probe: this.bus,
      mongoUrl: this.mongoUrl,
      databases: this.databases,
      infraStarted: this.infraStarted,
      progress,
    });
  }
}
