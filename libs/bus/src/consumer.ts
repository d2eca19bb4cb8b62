import Ajv, { type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import type { Consumer, EachBatchPayload, Kafka, KafkaMessage } from 'kafkajs';
import { dlqOf, MessageSchemas, type MessageData, type MessageType, type TopicOf } from '@postbus/contracts';
import type { Logger } from '@postbus/logger';
import { fromKafkaMessage, type Envelope } from './envelope';
import { isTransientError, PoisonMessageError } from './errors';
import type { ConsumerMetrics } from './metrics';
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
  /** Tells the broker this consumer is alive now; a timer does so anyway while a message is handled (see GroupTimings). */
  heartbeat?: () => Promise<void>;
}

export interface Handler<T extends MessageType = MessageType> {
  /** The logical topic name (without namespace): the one its type travels on. */
  topic: TopicOf<T>;
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
  /** The most messages one handleBatch() call gets, whatever the time budget allows (see GroupTimings). */
  maxRunSize?: number;
  /** How long the broker may hold a fetch to gather `minBytes` (kafkajs's defaults: 5 s, 1 byte). */
  fetch?: FetchSettings;
  /**
   * A consumer of every mail's traffic: its fetches wait for the bus's `fetch` settings, so that
   * at a modest rate each brings several messages. `send-path`: a consumer a mail waits for (the
   * mailer's triggers, the webhooks), whose wait is short; `off-send-path`: one no mail waits for
   * (the users service's registrations), which waits longer and gathers more. Others take the
   * bus's `idle` settings: a byte is enough, and a long wait costs nothing while idle (a consumer
   * asks the broker every wait even with nothing to read).
   */
  gatherFetches?: FetchGathering;
  /** Where the consumer reports its lag and rebalances; none in tools and tests that do not scrape. */
  metrics?: ConsumerMetrics;
}

/**
 * Group membership, and how much work a member takes on at once: the same for every consumer of
 * every service.
 *
 * kafkajs heartbeats only when the consumer asks it to: between fetches, or when a handler calls
 * heartbeat(). A member busy with one batch for longer than its session is evicted; its commits
 * are then refused and the next member starts the same work over, which under a large backlog is a
 * livelock. So:
 * - While a batch is handled, a timer heartbeats every `heartbeatIntervalMs`. A member leaves its
 *   group only when its process stops answering for `sessionTimeoutMs` (a crash, an event loop
 *   frozen that long), and then its partitions move to the other members within that time. Ten
 *   heartbeats fit in one session, so a few late timers on a busy machine never cost membership.
 * - A run of messages is sized from how long the last runs of its handler took, to about
 *   `runBudgetMs` of work (never more than the consumer's maxRunSize; `firstRunSize` before any
 *   was measured), and each message's offset is committed as soon as its effect is stored. A
 *   rebalance waits about one run at most for a member to let go of its partitions, and work
 *   already stored is not done again by the next owner.
 * - `rebalanceTimeoutMs` is how long a rebalance waits for the members to rejoin: many runs. A
 *   member told of a rebalance stops between messages, and stops retrying a failing message,
 *   which its partition's next owner gets again.
 */
export const GroupTimings = {
  sessionTimeoutMs: 15_000,
  heartbeatIntervalMs: 1_500,
  rebalanceTimeoutMs: 30_000,
  runBudgetMs: 1_000,
  firstRunSize: 50,
} as const;

/**
 * Messages of one run handled one by one at once: different keys are independent, as they are on
 * different partitions, and point reads and writes in flight side by side cost the database far
 * less than their sum one after another.
 */
const LEFTOVER_CONCURRENCY = 8;

/** Sizes the runs of one handler to about a time budget, from the time per message measured so far. */
export class RunSizer {
  private msPerMessage: number | undefined;

  constructor(
    private readonly budgetMs: number,
    private readonly max: number,
    private readonly first: number,
  ) {}

  /** How many messages the next run may take. */
  size(): number {
    if (this.msPerMessage === undefined) return Math.max(1, Math.min(this.first, this.max));
    return Math.max(1, Math.min(this.max, Math.floor(this.budgetMs / Math.max(this.msPerMessage, 0.001))));
  }

  /** A run of `messages` took `ms`: recent runs weigh most, so the size follows a change of load within a few runs. */
  measured(messages: number, ms: number): void {
    if (messages <= 0) return;
    const sample = ms / messages;
    this.msPerMessage = this.msPerMessage === undefined ? sample : 0.7 * this.msPerMessage + 0.3 * sample;
  }
}

/** While a batch is handled: whether the member may go on, kept up to date by the heartbeat timer. */
interface Membership {
  /** The coordinator refused a heartbeat: a rebalance is under way, or the member is no longer known. */
  lost: boolean;
  stop(): void;
}

const ajv = addFormats(new Ajv({ allErrors: false, strict: false }));
const validators = new Map<string, ValidateFunction>();
function validatorFor(type: MessageType): ValidateFunction {
  let v = validators.get(type);
  if (!v) validators.set(type, (v = ajv.compile(MessageSchemas[type])));
  return v;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** How long a consumer that kafkajs left stopped after a crash waits before it starts again. */
const CRASH_RESTART_MS = 1_000;

/**
 * Runs handlers over their topics: one message at a time per partition, the offset committed only
 * after the handler succeeded; a failing message is retried with exponential backoff, then moved
 * to `<topic>.dlq` with the reason; infrastructure outages are retried until they end.
 */
export class MessageConsumer {
  private readonly consumer: Consumer;
  private readonly byTopicAndType = new Map<string, Map<string, Handler>>();
  private readonly policy: RetryPolicy;
  private readonly runSizers = new Map<Handler, RunSizer>();
  private stopping = false;
  private restartTimer: NodeJS.Timeout | undefined;

  constructor(
    kafka: Kafka,
    private readonly options: ConsumerOptions,
  ) {
    this.policy = { attempts: 5, initialBackoffMs: 200, maxBackoffMs: 5000, ...options.retry };
    for (const handler of options.handlers) {
      this.runSizers.set(handler, new RunSizer(GroupTimings.runBudgetMs, options.maxRunSize ?? 1_000, GroupTimings.firstRunSize));
      const topic = options.resolveTopic(handler.topic);
      const types = this.byTopicAndType.get(topic) ?? new Map<string, Handler>();
      if (types.has(handler.type)) throw new Error(`two handlers for ${handler.type} on ${handler.topic}`);
      if (!(handler.type in MessageSchemas)) throw new Error(`no contract for message type ${handler.type}`);
      types.set(handler.type, handler);
      this.byTopicAndType.set(topic, types);
    }
    this.consumer = kafka.consumer({
      groupId: options.groupId,
      sessionTimeout: GroupTimings.sessionTimeoutMs,
      heartbeatInterval: GroupTimings.heartbeatIntervalMs,
      rebalanceTimeout: GroupTimings.rebalanceTimeoutMs,
      allowAutoTopicCreation: false,
      ...(options.fetch ?? {}),
      retry: { initialRetryTime: 300, retries: 10 },
    });
  }

  async start(): Promise<void> {
    const { metrics, groupId, logger } = this.options;
    if (metrics) this.consumer.on(this.consumer.events.GROUP_JOIN, () => metrics.joined(groupId));
    this.consumer.on(this.consumer.events.FETCH, () => {
      this.lastFetchAt = Date.now();
    });
    // kafkajs restarts a consumer that crashed on an error it counts as retriable, and leaves one
    // that crashed on another (e.g. "Failed to find group coordinator" while a broker is away)
    // stopped for good: its partitions' messages would wait until the process restarts. So it is
    // started again here, after a pause, until the service stops.
    this.consumer.on(this.consumer.events.CRASH, ({ payload }) => {
      if (payload.restart || this.stopping) return;
      logger.warn('the consumer stopped on an error kafkajs does not retry: starting it again', {
        group: groupId,
        error: payload.error.message,
      });
      this.restartSoon();
    });
    await this.connectAndRun();
  }

  private async connectAndRun(): Promise<void> {
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

  /** Starts a crashed consumer again after the pause: one start at a time, however many crashes and failed starts ask for it. */
  private restartSoon(): void {
    if (this.stopping || this.restartTimer) return;
    this.restartTimer = setTimeout(() => {
      this.restartTimer = undefined;
      if (this.stopping) return;
      this.connectAndRun().catch((error: unknown) => {
        this.options.logger.warn('starting the consumer again failed: trying again', {
          group: this.options.groupId,
          error: (error as Error).message,
        });
        this.restartSoon();
      });
    }, CRASH_RESTART_MS);
  }

  private lastFetchAt = 0;

  /**
   * Whether a fetch of this consumer came back within the last `ms`: it is running and hears what
   * its topics get within about that long (a fetch waits at most its maxWaitTimeInMs).
   */
  fetchedWithin(ms: number): boolean {
    return !this.stopping && Date.now() - this.lastFetchAt <= ms;
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
    clearTimeout(this.restartTimer);
    await this.consumer.disconnect();
  }

  private async eachBatch(payload: EachBatchPayload): Promise<void> {
    const { batch } = payload;
    const heartbeat = () => payload.heartbeat();
    const membership = this.keepMembership(payload);
    const canGoOn = () => payload.isRunning() && !payload.isStale() && !this.stopping && !membership.lost;
    const { metrics, groupId } = this.options;
    const reportLag = (next: number) => metrics?.setLag(groupId, batch.topic, batch.partition, Number(batch.highWatermark) - next);
    // Each message's offset is resolved once its effect is stored, and committed at once if due.
    const stored = async (message: KafkaMessage) => {
      payload.resolveOffset(message.offset);
      reportLag(Number(message.offset) + 1);
      await payload.commitOffsetsIfNecessary();
    };
    reportLag(Number(batch.firstOffset() ?? batch.highWatermark));
    try {
      let run: Decoded[] = [];
      for (const message of batch.messages) {
        if (!canGoOn()) return;
        const decoded = await this.decode(batch.topic, batch.partition, message, heartbeat);
        if (decoded?.handler.handleBatch) {
          const current = run[0]?.handler;
          if (current && (current !== decoded.handler || run.length >= this.runSizers.get(current)!.size())) {
            if (!(await this.handleRun(run, canGoOn, stored))) return;
            run = [];
          }
          run.push(decoded);
          continue;
        }
        if (run.length > 0 && !(await this.handleRun(run, canGoOn, stored))) return;
        run = [];
        if (decoded && !(await this.handleOne(decoded, canGoOn))) return;
        await stored(message);
      }
      if (run.length > 0 && canGoOn()) await this.handleRun(run, canGoOn, stored);
    } finally {
      membership.stop();
    }
  }

  /**
   * Heartbeats on a timer while the batch is handled, however long its handlers take; a refused
   * heartbeat marks the membership lost, so that the batch stops at the next message and the
   * member rejoins (kafkajs commits what was resolved before the rebalance).
   */
  private keepMembership(payload: EachBatchPayload): Membership {
    const { logger, metrics, groupId } = this.options;
    const membership: Membership = { lost: false, stop: () => clearInterval(timer) };
    const timer = setInterval(() => {
      payload.heartbeat().catch((error: unknown) => {
        if (membership.lost) return;
        membership.lost = true;
        metrics?.heartbeatFailures.inc({ group: groupId });
        logger.info('heartbeat refused while handling a batch: stopping it to rejoin the group', {
          group: groupId,
          reason: (error as { type?: string }).type ?? (error as Error).message,
        });
      });
    }, GroupTimings.heartbeatIntervalMs);
    return membership;
  }

  /**
   * Handles a run of one handler's messages: the handler's batch path, then what it left one by
   * one (see handleLeftover). Offsets go forward as messages are stored; false when the member must stop.
   */
  private async handleRun(run: Decoded[], canGoOn: () => boolean, stored: (message: KafkaMessage) => Promise<void>): Promise<boolean> {
    const handler = run[0]!.handler;
    const started = performance.now();
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
    const handled = await this.handleLeftover(
      run,
      [...new Set(leftover)].sort((a, b) => a - b),
      canGoOn,
      stored,
    );
    this.runSizers.get(handler)!.measured(handled, performance.now() - started);
    return handled === run.length;
  }

  /**
   * The messages of a run its batch path left: side by side (LEFTOVER_CONCURRENCY at once), each
   * key's in order, as across partitions. The offset moves to the end of the stored prefix of the
   * run as it grows. Returns that prefix's length: the whole run unless the member must stop.
   */
  private async handleLeftover(
    run: Decoded[],
    leftover: number[],
    canGoOn: () => boolean,
    stored: (message: KafkaMessage) => Promise<void>,
  ): Promise<number> {
    const pending = new Set(leftover);
    let prefix = 0;
    const advance = async () => {
      let end = prefix;
      while (end < run.length && !pending.has(end)) end++;
      if (end === prefix) return;
      prefix = end;
      await stored(run[end - 1]!.message);
    };
    await advance(); // what the batch path stored before the first message it left
    let stopped = false;
    const lastOfKey = new Map<string, Promise<boolean>>();
    let next = 0;
    const worker = async () => {
      while (next < leftover.length) {
        const i = leftover[next++]!;
        const key = run[i]!.ctx.key;
        const handled = (lastOfKey.get(key) ?? Promise.resolve(true)).then(async (before) => {
          if (!before || stopped || !canGoOn()) return false;
          return this.handleOne(run[i]!, canGoOn);
        });
        lastOfKey.set(key, handled);
        if (await handled) {
          pending.delete(i);
          await advance();
        } else {
          stopped = true;
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(LEFTOVER_CONCURRENCY, leftover.length) }, worker));
    return prefix;
  }

  /** Reads and validates a message; a message that breaks the contract goes to the DLQ (undefined). */
  private async decode(
    topic: string,
    partition: number,
    message: KafkaMessage,
    heartbeat: () => Promise<void>,
  ): Promise<Decoded | undefined> {
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
      heartbeat,
    };
    return { handler, envelope, ctx, message };
  }

  /** Handles one message with retries; false when the member must stop first (the message goes to the partition's next owner). */
  private async handleOne({ handler, envelope, ctx, message }: Decoded, canGoOn: () => boolean): Promise<boolean> {
    const { topic, partition } = ctx;
    // The message's ids on every line about it, named here: no context travels implicitly (see createLogger).
    const about = { requestId: envelope.requestId, eventId: envelope.id, eventType: envelope.type, topic, offset: message.offset };
    const { logger } = this.options;
    for (let attempt = 1; ; attempt++) {
      try {
        await handler.handle(envelope.data as never, ctx);
        return true;
      } catch (error) {
        const transient = isTransientError(error);
        const poison = error instanceof PoisonMessageError;
        if (poison || (!transient && attempt >= this.policy.attempts)) {
          logger.error('message failed, moved to the DLQ', { ...about, error, attempt });
          await this.toDlq(topic, partition, message, (error as Error).message);
          return true;
        }
        if (!canGoOn()) return false; // not committed: redelivered to the next owner of the partition
        const backoff = Math.min(this.policy.maxBackoffMs, this.policy.initialBackoffMs * 2 ** (attempt - 1));
        logger.warn('message failed, retrying', { ...about, error: (error as Error).message, attempt, transient, backoffMs: backoff });
        await sleep(backoff);
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
