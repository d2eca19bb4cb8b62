import { CompressionTypes, Partitioners, type Kafka, type Message, type Producer, type TopicMessages } from 'kafkajs';
import { BulkTopics, type MessageData, type MessageType, type TopicOf } from '@postbus/contracts';
import type { Logger } from '@postbus/logger';
import { newEnvelope, toKafkaHeaders } from './envelope';
import { BusUnavailableError } from './errors';

export interface PublishOptions {
  requestId?: string;
  /** A stable event id, when the caller derives one (e.g. from a command id) for idempotency. */
  id?: string;
}

interface Pending {
  /** The topic as it is named on the broker. */
  topic: string;
  message: Message;
  resolve: () => void;
  reject: (error: unknown) => void;
}

export interface PublisherOptions {
  source: string;
  logger: Logger;
  /** Topic names as they are on the broker (namespace applied). */
  resolveTopic: (topic: string) => string;
  /** How long a publish may wait for the broker's acknowledgement before it fails. */
  ackTimeoutMs?: number;
  maxBatchSize?: number;
  /**
   * Bytes of keys, values and headers in one produce request. The broker refuses a record batch
   * over its message.max.bytes (1 MB by default) and with it every message of the batch; under
   * the cap, two large messages go in separate requests and both land.
   */
  maxBatchBytes?: number;
  /** Producers writing side by side (1 by default); a key always uses the same one, so its order is kept. */
  lanes?: number;
}

/**
 * One idempotent, acks=all producer. An idempotent producer has one request in flight at a time,
 * so every publish made meanwhile is grouped into the next produce request: throughput grows with
 * load, and each caller still learns when its own message is durably stored.
 */
class Lane {
  private producer: Producer;
  private queue: Pending[] = [];
  private flushing = false;
  private scheduled = false;
  private connected: Promise<void> | undefined;

  constructor(
    private readonly kafka: Kafka,
    private readonly logger: Logger,
    private readonly ackTimeoutMs: number,
    private readonly maxBatchSize: number,
    private readonly maxBatchBytes: number,
    /** Told whether each write was acknowledged. */
    private readonly onWrite: (acknowledged: boolean) => void,
  ) {
    this.producer = this.newProducer();
  }

  private newProducer(): Producer {
    return this.kafka.producer({
      idempotent: true,
      maxInFlightRequests: 1,
      allowAutoTopicCreation: false,
      createPartitioner: Partitioners.DefaultPartitioner,
      retry: { initialRetryTime: 100, retries: 3, maxRetryTime: 1000 },
    });
  }

  /**
   * After a failed or abandoned send, a new producer (a new producer id, its sequence numbers
   * from 0). kafkajs's idempotent producer cannot recover its own: a request that timed out here
   * while kafkajs still retried it, or that the broker stored although the answer was lost, leaves
   * its sequence numbers out of step with the broker's, and every later send is refused with
   * OUT_OF_ORDER_SEQUENCE_NUMBER (seen after a broker was SIGKILLed under load: the gateway
   * answered 503 to every request until restarted). The old producer is disconnected once its
   * last send settles.
   */
  private replaceProducer(abandoned: Promise<unknown>): void {
    const old = this.producer;
    this.producer = this.newProducer();
    this.connected = undefined;
    void abandoned
      .catch(() => undefined)
      .then(() => old.disconnect())
      .catch(() => undefined);
  }

  async connect(): Promise<void> {
    this.connected ??= this.producer.connect().catch((error: unknown) => {
      this.connected = undefined;
      throw new BusUnavailableError(error);
    });
    await this.connected;
  }

  enqueue(topic: string, message: Message): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.queue.push({ topic, message, resolve, reject });
      this.schedule();
    });
  }

  private schedule(): void {
    if (this.scheduled || this.flushing) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      void this.flush();
    });
  }

  private async flush(): Promise<void> {
    if (this.flushing || this.queue.length === 0) return;
    this.flushing = true;
    const batch = this.queue.splice(0, this.batchLength());
    const sending = this.send(batch);
    try {
      await this.withTimeout(sending);
      this.onWrite(true);
      for (const p of batch) p.resolve();
    } catch (error) {
      this.onWrite(false);
      this.replaceProducer(sending);
      this.logger.warn('publish failed', { error: (error as Error).message, messages: batch.length });
      const failure = error instanceof BusUnavailableError ? error : new BusUnavailableError(error);
      for (const p of batch) p.reject(failure);
    } finally {
      this.flushing = false;
      if (this.queue.length > 0) this.schedule();
    }
  }

  /** How many queued messages fit in the next request: at least one, a message too large for the broker alone. */
  private batchLength(): number {
    let bytes = 0;
    let count = 0;
    for (const p of this.queue) {
      if (count >= this.maxBatchSize) break;
      bytes += sizeOf(p.message);
      if (count > 0 && bytes > this.maxBatchBytes) break;
      count++;
    }
    return count;
  }

  private async send(batch: Pending[]): Promise<void> {
    await this.connect();
    const byTopic = new Map<string, TopicMessages>();
    for (const p of batch) {
      let entry = byTopic.get(p.topic);
      if (!entry) byTopic.set(p.topic, (entry = { topic: p.topic, messages: [] }));
      entry.messages.push(p.message);
    }
    await this.producer.sendBatch({ topicMessages: [...byTopic.values()], acks: -1, compression: CompressionTypes.None });
  }

  private withTimeout<T>(work: Promise<T>): Promise<T> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new BusUnavailableError(new Error(`no acknowledgement within ${this.ackTimeoutMs} ms`))),
        this.ackTimeoutMs,
      );
    });
    // A late failure of the abandoned send must not become an unhandled rejection.
    work.catch(() => undefined);
    return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
  }

  async close(): Promise<void> {
    while (this.queue.length > 0 || this.flushing) {
      if (!this.flushing) await this.flush();
      else await new Promise((r) => setTimeout(r, 10));
    }
    await this.producer.disconnect();
    this.connected = undefined;
  }
}

const RECORD_OVERHEAD_BYTES = 70;
const bytesOf = (value: Message['value'] | Message['key']): number =>
  value === null || value === undefined ? 0 : typeof value === 'string' ? Buffer.byteLength(value) : value.length;

function sizeOf(message: Message): number {
  let bytes = RECORD_OVERHEAD_BYTES + bytesOf(message.key) + bytesOf(message.value);
  for (const [name, value] of Object.entries(message.headers ?? {})) {
    bytes += Buffer.byteLength(name) + (Array.isArray(value) ? value.reduce((n, v) => n + bytesOf(v), 0) : bytesOf(value ?? null));
  }
  return bytes;
}

/** FNV-1a: a cheap, stable spread of keys over lanes. */
function laneIndex(key: string, lanes: number): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) hash = Math.imul(hash ^ key.charCodeAt(i), 0x01000193);
  return (hash >>> 0) % lanes;
}

/**
 * Publishes CloudEvents over one idempotent producer, or a few side by side ("lanes"): while one
 * lane waits for the broker's acknowledgement another can write. One lane (the default) gathers
 * the most messages into each request, the cheapest per message for the service and the broker;
 * more lanes shorten the wait of a publish behind a request in flight (a broker round trip).
 * A key always takes the same lane, so the messages of one key keep their order. The bulk
 * topics (BulkTopics) have a producer of their own, so that no other publish waits behind their
 * large requests; there, too, a key keeps its order.
 */
export class Publisher {
  private readonly lanes: Lane[];
  /** The bulk topics' own producer (BulkTopics), made on their first publish: most processes never write one. */
  private bulkLane: Lane | undefined;
  private readonly newLane: () => Lane;
  /** The last write of any lane; all lanes talk to the same brokers. */
  private lastWriteFailed = false;

  constructor(
    kafka: Kafka,
    private readonly options: PublisherOptions,
  ) {
    const count = Math.max(1, options.lanes ?? 1);
    const onWrite = (acknowledged: boolean) => {
      this.lastWriteFailed = !acknowledged;
    };
    this.newLane = () =>
      new Lane(
        kafka,
        options.logger,
        options.ackTimeoutMs ?? 5000,
        options.maxBatchSize ?? 1000,
        options.maxBatchBytes ?? 800 * 1024,
        onWrite,
      );
    this.lanes = Array.from({ length: count }, this.newLane);
  }

  /** Connects now; publish() also connects (and reconnects after a broker outage) on demand. */
  async connect(): Promise<void> {
    await Promise.all(this.allLanes().map((lane) => lane.connect()));
  }

  /** For readiness: connected, and the last write (if any) was acknowledged. */
  async healthy(): Promise<boolean> {
    try {
      await this.connect();
      return !this.lastWriteFailed;
    } catch {
      return false;
    }
  }

  /** Resolves with the event id once the broker has acknowledged the write (acks=all). */
  publish<T extends MessageType>(
    topic: NoInfer<TopicOf<T>>,
    type: T,
    key: string,
    data: MessageData<T>,
    options: PublishOptions = {},
  ): Promise<string> {
    const envelope = newEnvelope(type, this.options.source, data, options.requestId, options.id);
    const message = { key, value: JSON.stringify(envelope.data), headers: toKafkaHeaders(envelope) };
    const lane = BulkTopics.has(topic) ? (this.bulkLane ??= this.newLane()) : this.laneFor(key);
    return lane.enqueue(this.options.resolveTopic(topic), message).then(() => envelope.id);
  }

  /** Writes a message as it is (e.g. to a DLQ) to a topic named as it is on the broker. */
  publishRaw(brokerTopic: string, key: string, value: Buffer | null, headers: Record<string, string>): Promise<void> {
    return this.laneFor(key).enqueue(brokerTopic, { key, value, headers });
  }

  private laneFor(key: string): Lane {
    return this.lanes[laneIndex(key, this.lanes.length)]!;
  }

  private allLanes(): Lane[] {
    return this.bulkLane ? [...this.lanes, this.bulkLane] : this.lanes;
  }

  /** Sends what is queued, then disconnects. */
  async close(): Promise<void> {
    await Promise.all(this.allLanes().map((lane) => lane.close()));
  }
}
