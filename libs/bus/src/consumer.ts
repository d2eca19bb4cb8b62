import Ajv, { type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import type { Consumer, EachBatchPayload, Kafka, KafkaMessage } from 'kafkajs';
import { dlqOf, MessageSchemas, type MessageData, type MessageType } from '@postbus/contracts';
import type { Logger } from '@postbus/logger';
import { fromKafkaMessage, type Envelope } from './envelope';
import { isTransientError, PoisonMessageError } from './errors';
import type { Publisher } from './publisher';

/** What a handler knows about the message it is handling besides its data. */
export interface MessageContext {
  id: string;
  type: string;
  source: string;
  time: string;
  requestId?: string;
  key: string;
  topic: string;
  partition: number;
  offset: string;
  /** Tells the broker this consumer is alive: a long handler (an erasure in chunks) calls it between chunks. */
  heartbeat?: () => Promise<void>;
}

export interface Handler<T extends MessageType = MessageType> {
  /** The logical topic name (without namespace). */
  topic: string;
  type: T;
  handle(data: MessageData<T>, ctx: MessageContext): Promise<void>;
  /**
   * Optional fast path for a run of consecutive messages of this type from one partition (e.g. one
   * insertMany instead of many inserts). Returns the positions it did not handle; those, or all of
   * them if it throws, then go through handle() one by one, in order, with the usual retries.
   */
  handleBatch?(items: BatchItem<T>[]): Promise<number[]>;
}

export interface BatchItem<T extends MessageType = MessageType> {
  data: MessageData<T>;
  ctx: MessageContext;
}

/** A message read, validated and matched to its handler. */
interface Decoded {
  handler: Handler;
  envelope: Envelope;
  ctx: MessageContext;
  message: KafkaMessage;
}

/** Declares a handler for one message type; its data is validated against the contract before handle(). */
export const defineHandler = <T extends MessageType>(handler: Handler<T>): Handler<T> => handler;

export interface RetryPolicy {
  /** Attempts for a failing message before it goes to the DLQ. */
  attempts: number;
  initialBackoffMs: number;
  maxBackoffMs: number;
}

export type FetchGathering = 'send-path' | 'off-send-path';

/** How long the broker may hold a fetch (kafkajs maxWaitTimeInMs) to gather how many bytes (minBytes). */
export interface FetchSettings {
  maxWaitTimeInMs: number;
  minBytes: number;
}

export interface ConsumerOptions {
  groupId: string;
  /** Handlers of different message types; the registry checks them at boot (no duplicates, known types). */
  handlers: Handler[];
  logger: Logger;
  publisher: Publisher;
  resolveTopic: (topic: string) => string;
  retry?: Partial<RetryPolicy>;
  /** Partitions processed at once by one instance; order within a partition is kept. */
  partitionsConsumedConcurrently?: number;
  /** A new group starts at the oldest message (default) or only reads what is published after it joined. */
  fromBeginning?: boolean;
  /** The most messages one handleBatch() call gets: smaller runs commit (and free the partition) sooner. */
  maxRunSize?: number;
  /** How long the broker may hold a fetch to gather `minBytes` (kafkajs's defaults: 5 s, 1 byte). */
  fetch?: FetchSettings;
  /**
   * A consumer of every mail's traffic: its fetches wait for the bus's `fetch` settings, so that
   * at a modest rate each brings several messages. `send-path`: a consumer a mail waits for (the
   * mailer's triggers, the webhooks), whose wait is short; `off-send-path`: one no mail waits for
   * (the users service's registrations), which waits longer and gathers more. Others keep
   * kafkajs's defaults, which cost nothing while idle (a gathering consumer asks the broker every
   * wait even with nothing to read).
   */
  gatherFetches?: FetchGathering;
}

const ajv = addFormats(new Ajv({ allErrors: false, strict: false }));
const validators = new Map<string, ValidateFunction>();
function validatorFor(type: MessageType): ValidateFunction {
  let v = validators.get(type);
  if (!v) validators.set(type, (v = ajv.compile(MessageSchemas[type])));
  return v;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Runs handlers over their topics: one message at a time per partition, the offset committed only
 * after the handler succeeded; a failing message is retried with exponential backoff, then moved
 * to `<topic>.dlq` with the reason; infrastructure outages are retried until they end.
 */
export class MessageConsumer {
  private readonly consumer: Consumer;
  private readonly byTopicAndType = new Map<string, Map<string, Handler>>();
  private readonly policy: RetryPolicy;
  private readonly maxRun: number;
  private stopping = false;

  constructor(
    kafka: Kafka,
    private readonly options: ConsumerOptions,
  ) {
    this.policy = { attempts: 5, initialBackoffMs: 200, maxBackoffMs: 5000, ...options.retry };
    this.maxRun = options.maxRunSize ?? 1_000;
    for (const handler of options.handlers) {
      const topic = options.resolveTopic(handler.topic);
      const types = this.byTopicAndType.get(topic) ?? new Map<string, Handler>();
      if (types.has(handler.type)) throw new Error(`two handlers for ${handler.type} on ${handler.topic}`);
      if (!(handler.type in MessageSchemas)) throw new Error(`no contract for message type ${handler.type}`);
      types.set(handler.type, handler);
      this.byTopicAndType.set(topic, types);
    }
    this.consumer = kafka.consumer({
      groupId: options.groupId,
      sessionTimeout: 15000,
      heartbeatInterval: 1500,
      allowAutoTopicCreation: false,
      ...(options.fetch ?? {}),
      retry: { initialRetryTime: 300, retries: 10 },
    });
  }

  async start(): Promise<void> {
    await this.consumer.connect();
    await this.consumer.subscribe({ topics: [...this.byTopicAndType.keys()], fromBeginning: this.options.fromBeginning ?? true });
    await this.consumer.run({
      autoCommit: true,
      autoCommitInterval: 500,
      eachBatchAutoResolve: false,
      partitionsConsumedConcurrently: this.options.partitionsConsumedConcurrently ?? 3,
      eachBatch: (payload) => this.eachBatch(payload),
    });
  }

  /** Resolves once the group has assigned this consumer its partitions (useful in tests and start-up logs). */
  whenJoined(timeoutMs = 30000): Promise<void> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`consumer group ${this.options.groupId} not joined in ${timeoutMs} ms`)), timeoutMs);
      const remove = this.consumer.on(this.consumer.events.GROUP_JOIN, () => {
        clearTimeout(timer);
        remove();
        resolve();
      });
    });
  }

  async stop(): Promise<void> {
    this.stopping = true;
    await this.consumer.disconnect();
  }

  private async eachBatch(payload: EachBatchPayload): Promise<void> {
    const { batch } = payload;
    const heartbeat = () => payload.heartbeat();
    let run: Decoded[] = [];
    // A run is handled, then its offsets are resolved and committed: never before the effect is stored.
    const finishRun = async () => {
      if (run.length === 0) return;
      await this.handleRun(run, heartbeat);
      payload.resolveOffset(run[run.length - 1]!.message.offset);
      run = [];
      await payload.commitOffsetsIfNecessary();
      await heartbeat();
    };
    for (const message of batch.messages) {
      if (!payload.isRunning() || payload.isStale() || this.stopping) break;
      const decoded = await this.decode(batch.topic, batch.partition, message);
      if (decoded?.handler.handleBatch) {
        if (run.length > 0 && (run[0]!.handler !== decoded.handler || run.length >= this.maxRun)) await finishRun();
        run.push(decoded);
        continue;
      }
      await finishRun();
      if (decoded) await this.handleOne(decoded, heartbeat);
      payload.resolveOffset(message.offset);
      await payload.commitOffsetsIfNecessary();
      await heartbeat();
    }
    if (!this.stopping && payload.isRunning() && !payload.isStale()) await finishRun();
  }

  private async handleRun(run: Decoded[], heartbeat: () => Promise<void>): Promise<void> {
    const handler = run[0]!.handler;
    let leftover: number[];
    if (run.length === 1 || !handler.handleBatch) {
      leftover = run.map((_, i) => i);
    } else {
      try {
        leftover = await handler.handleBatch(run.map(({ envelope, ctx }) => ({ data: envelope.data as never, ctx })));
      } catch (error) {
        this.options.logger.warn('batch failed, handling its messages one by one', {
          error: (error as Error).message,
          eventType: handler.type,
          size: run.length,
        });
        leftover = run.map((_, i) => i);
      }
    }
    for (const i of leftover) await this.handleOne(run[i]!, heartbeat);
  }

  /** Reads and validates a message; a message that breaks the contract goes to the DLQ (undefined). */
  private async decode(topic: string, partition: number, message: KafkaMessage): Promise<Decoded | undefined> {
    let envelope: Envelope;
    try {
      envelope = fromKafkaMessage(message.headers, message.value);
    } catch (error) {
      await this.toDlq(topic, partition, message, `unreadable: ${(error as Error).message}`);
      return undefined;
    }
    const handler = this.byTopicAndType.get(topic)?.get(envelope.type);
    if (!handler) {
      if (!(envelope.type in MessageSchemas)) await this.toDlq(topic, partition, message, `unknown message type ${envelope.type}`);
      return undefined; // a known type this service does not handle
    }
    const validate = validatorFor(handler.type);
    if (!validate(envelope.data)) {
      await this.toDlq(topic, partition, message, `invalid ${envelope.type}: ${ajv.errorsText(validate.errors)}`);
      return undefined;
    }
    const ctx: MessageContext = {
      id: envelope.id,
      type: envelope.type,
      source: envelope.source,
      time: envelope.time,
      ...(envelope.requestId ? { requestId: envelope.requestId } : {}),
      key: message.key?.toString() ?? '',
      topic,
      partition,
      offset: message.offset,
    };
    return { handler, envelope, ctx, message };
  }

  private async handleOne({ handler, envelope, ctx, message }: Decoded, heartbeat: () => Promise<void>): Promise<void> {
    const { topic, partition } = ctx;
    // The message's ids on every line about it, named here: no context travels implicitly (see createLogger).
    const about = { requestId: envelope.requestId, eventId: envelope.id, eventType: envelope.type, topic, offset: message.offset };
    const { logger } = this.options;
    for (let attempt = 1; ; attempt++) {
      try {
        await handler.handle(envelope.data as never, { ...ctx, heartbeat });
        return;
      } catch (error) {
        const transient = isTransientError(error);
        const poison = error instanceof PoisonMessageError;
        if (poison || (!transient && attempt >= this.policy.attempts)) {
          logger.error('message failed, moved to the DLQ', { ...about, error, attempt });
          await this.toDlq(topic, partition, message, (error as Error).message);
          return;
        }
        if (this.stopping) throw error; // not committed: redelivered to the next owner of the partition
        const backoff = Math.min(this.policy.maxBackoffMs, this.policy.initialBackoffMs * 2 ** (attempt - 1));
        logger.warn('message failed, retrying', { ...about, error: (error as Error).message, attempt, transient, backoffMs: backoff });
        await sleep(backoff);
        await heartbeat();
      }
    }
  }

  private async toDlq(topic: string, partition: number, message: KafkaMessage, reason: string): Promise<void> {
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(message.headers ?? {})) {
      const first = Array.isArray(value) ? value[0] : value;
      if (first !== undefined) headers[name] = first.toString();
    }
    await this.options.publisher.publishRaw(dlqOf(topic), message.key?.toString() ?? '', message.value, {
      ...headers,
      dlq_reason: reason.slice(0, 1000),
      dlq_topic: topic,
      dlq_partition: String(partition),
      dlq_offset: message.offset,
      dlq_time: new Date().toISOString(),
    });
    this.options.logger.warn('message moved to the DLQ', { topic, partition, offset: message.offset, reason });
  }
}
