import { CompressionTypes, Partitioners, type Kafka, type Message, type Producer, type TopicMessages } from 'kafkajs';
import type { MessageData, MessageType } from '@postbus/contracts';
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
}

/**
 * An idempotent, acks=all producer that groups every publish made while the previous write is in
 * flight into one produce request: throughput grows with load, and each caller still learns when
 * its own message is durably stored.
 */
export class Publisher {
  private readonly producer: Producer;
  private queue: Pending[] = [];
  private flushing = false;
  private scheduled = false;
  private connected: Promise<void> | undefined;
  private readonly ackTimeoutMs: number;
  private readonly maxBatchSize: number;
  private lastWriteFailed = false;

  constructor(
    kafka: Kafka,
    private readonly options: PublisherOptions,
  ) {
    this.producer = kafka.producer({
      idempotent: true,
      maxInFlightRequests: 1,
      allowAutoTopicCreation: false,
      createPartitioner: Partitioners.DefaultPartitioner,
      retry: { initialRetryTime: 100, retries: 3, maxRetryTime: 1000 },
    });
    this.ackTimeoutMs = options.ackTimeoutMs ?? 5000;
    this.maxBatchSize = options.maxBatchSize ?? 1000;
  }

  /** Connects now; publish() also connects (and reconnects after a broker outage) on demand. */
  async connect(): Promise<void> {
    this.connected ??= this.producer.connect().catch((error: unknown) => {
      this.connected = undefined;
      throw new BusUnavailableError(error);
    });
    await this.connected;
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
  publish<T extends MessageType>(topic: string, type: T, key: string, data: MessageData<T>, options: PublishOptions = {}): Promise<string> {
    const envelope = newEnvelope(type, this.options.source, data, options.requestId, options.id);
    const message = { key, value: JSON.stringify(envelope.data), headers: toKafkaHeaders(envelope) };
    return this.enqueue(this.options.resolveTopic(topic), message).then(() => envelope.id);
  }

  /** Writes a message as it is (e.g. to a DLQ) to a topic named as it is on the broker. */
  publishRaw(brokerTopic: string, key: string, value: Buffer | null, headers: Record<string, string>): Promise<void> {
    return this.enqueue(brokerTopic, { key, value, headers });
  }

  private enqueue(topic: string, message: Message): Promise<void> {
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
    const batch = this.queue.splice(0, this.maxBatchSize);
    try {
      await this.withTimeout(this.send(batch));
      this.lastWriteFailed = false;
      for (const p of batch) p.resolve();
    } catch (error) {
      this.lastWriteFailed = true;
      this.options.logger.warn('publish failed', { error: (error as Error).message, messages: batch.length });
      const failure = error instanceof BusUnavailableError ? error : new BusUnavailableError(error);
      for (const p of batch) p.reject(failure);
    } finally {
      this.flushing = false;
      if (this.queue.length > 0) this.schedule();
    }
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

  /** Sends what is queued, then disconnects. */
  async close(): Promise<void> {
    while (this.queue.length > 0 || this.flushing) {
      if (!this.flushing) await this.flush();
      else await new Promise((r) => setTimeout(r, 10));
    }
    await this.producer.disconnect();
    this.connected = undefined;
  }
}
