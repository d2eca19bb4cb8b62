import type { Admin, Consumer, EachBatchPayload, Kafka } from 'kafkajs';

/** A record a TopicReader found: where it is on its topic, and what it holds. */
export interface FoundRecord {
  partition: number;
  offset: string;
  timestamp: number;
  value: Buffer;
}

export interface RecordLookup {
  /** The topic as it is named on the broker (namespace applied). */
  topic: string;
  /** Records written from this time (ms, their timestamps) are looked at... */
  from: number;
  /** ...until one written after this time, on each partition. */
  until: number;
  /** The record looked for. */
  match: (value: Buffer) => boolean;
}

export interface TopicReaderOptions {
  /** The reader's own consumer group: one per process, never shared (it commits nothing). */
  groupId: string;
  /** The topics it may look in, as named on the broker. */
  topics: string[];
  admin: () => Promise<Admin>;
  /** How long one lookup may take before it answers "not found". */
  budgetMs?: number;
}

interface OpenLookup extends RecordLookup {
  /** Partitions still to read, with the offset their end was at when the lookup began. */
  open: Map<number, number>;
  done: (found: FoundRecord | undefined) => void;
}

/**
 * Finds a record on a topic by the time it was written, without a consumer group's position:
 * e.g. a trigger the gateway accepted that no service has read yet. A consumer of its own whose
 * partitions all stay paused, so it fetches nothing, until a lookup seeks each one to the first
 * record of its time (Kafka's time index) and reads on until the record is found, or records
 * written after the lookup's window, or the partition's end. One lookup at a time, each within a
 * budget: a reader costs nothing while no one looks, and a bounded read when someone does.
 */
export class TopicReader {
  private readonly consumer: Consumer;
  private readonly budgetMs: number;
  private lookup: OpenLookup | undefined;
  private turn: Promise<unknown> = Promise.resolve();

  constructor(
    kafka: Kafka,
    private readonly options: TopicReaderOptions,
  ) {
    this.budgetMs = options.budgetMs ?? 1_000;
    this.consumer = kafka.consumer({
      groupId: options.groupId,
      allowAutoTopicCreation: false,
      // A lookup's record is near where the time index points: a fetch brings a few hundred records
      // of each partition, not a megabyte. While every partition is paused, kafkajs sleeps this long
      // between looks at them: it is also how long a lookup may wait to start.
      maxBytesPerPartition: 64 * 1024,
      maxBytes: 1024 * 1024,
      maxWaitTimeInMs: 50,
    });
  }

  async start(joinTimeoutMs = 30_000): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const joined = new Promise<void>((resolve, reject) => {
      // A join that never comes fails the start, rather than holding it for good.
      timer = setTimeout(
        () => reject(new Error(`the reader's consumer group ${this.options.groupId} did not join in ${joinTimeoutMs} ms`)),
        joinTimeoutMs,
      );
      this.consumer.on(this.consumer.events.GROUP_JOIN, ({ payload }) => {
        // Paused as soon as assigned, before the first fetch: the reader reads only for a lookup.
        this.consumer.pause(Object.keys(payload.memberAssignment).map((topic) => ({ topic })));
        clearTimeout(timer);
        resolve();
      });
    });
    joined.catch(() => undefined); // awaited below, once the consumer runs
    try {
      await this.consumer.connect();
      await this.consumer.subscribe({ topics: this.options.topics, fromBeginning: false });
      await this.consumer.run({ autoCommit: false, eachBatch: (payload) => this.read(payload) });
      await joined;
    } finally {
      clearTimeout(timer);
    }
  }

  async stop(): Promise<void> {
    await this.consumer.disconnect();
  }

  /** The first record of the lookup's window that it matches; undefined when there is none, or the budget ran out. */
  find(lookup: RecordLookup): Promise<FoundRecord | undefined> {
    const found = this.turn.then(() => this.findNow(lookup));
    this.turn = found.catch(() => undefined);
    return found;
  }

  private async findNow(lookup: RecordLookup): Promise<FoundRecord | undefined> {
    const admin = await this.options.admin();
    const [atTime, ends] = await Promise.all([
      admin.fetchTopicOffsetsByTimestamp(lookup.topic, lookup.from),
      admin.fetchTopicOffsets(lookup.topic),
    ]);
    const open = new Map<number, number>();
    for (const { partition, offset } of atTime) {
      const end = Number(ends.find((e) => e.partition === partition)?.high ?? 0);
      if (Number(offset) >= 0 && Number(offset) < end) open.set(partition, end);
    }
    if (open.size === 0) return undefined;
    const partitions = [...open.keys()];
    let timer: NodeJS.Timeout | undefined;
    try {
      return await new Promise<FoundRecord | undefined>((resolve) => {
        this.lookup = { ...lookup, open, done: resolve };
        timer = setTimeout(() => resolve(undefined), this.budgetMs);
        for (const { partition, offset } of atTime)
          if (open.has(partition)) this.consumer.seek({ topic: lookup.topic, partition, offset: String(offset) });
        this.consumer.resume([{ topic: lookup.topic, partitions }]);
      });
    } finally {
      clearTimeout(timer);
      this.lookup = undefined;
      this.consumer.pause([{ topic: lookup.topic, partitions }]);
    }
  }

  private read({ batch }: EachBatchPayload): Promise<void> {
    const lookup = this.lookup;
    const end = lookup?.topic === batch.topic ? lookup.open.get(batch.partition) : undefined;
    if (!lookup || end === undefined) return Promise.resolve(); // fetched before a pause took effect
    for (const message of batch.messages) {
      if (Number(message.timestamp) > lookup.until) {
        lookup.open.delete(batch.partition);
        break;
      }
      if (message.value && lookup.match(message.value)) {
        lookup.done({ partition: batch.partition, offset: message.offset, timestamp: Number(message.timestamp), value: message.value });
        return Promise.resolve();
      }
      if (Number(message.offset) >= end - 1) {
        lookup.open.delete(batch.partition);
        break;
      }
    }
    if (lookup.open.size === 0) lookup.done(undefined);
    return Promise.resolve();
  }
}
