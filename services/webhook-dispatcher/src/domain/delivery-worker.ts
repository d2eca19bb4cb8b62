import type { Logger } from '@postbus/logger';
import type { DueItem } from '@postbus/db';
import { attemptIdOf } from './delivery-keys';
import type { AttemptOutcome } from './delivery-status';
import type { DeliveryLog, DueAttempts, EndpointDirectory, SendOptions, SendResult, WebhookSender } from './ports';
import type { DeliveryDoc, DuePayload } from './records';
import { signatureHeadersOf } from './webhook-formats';

export interface WorkerDeps {
  endpoints: Pick<EndpointDirectory, 'cachedById' | 'signingSecrets' | 'disable'>;
  deliveries: Pick<DeliveryLog, 'delivery' | 'recordAttempt'> & {
    due: Pick<DueAttempts, 'claimDue' | 'schedule' | 'scheduleMany' | 'done'>;
  };
  logger: Logger;
  send: WebhookSender;
  /** Milliseconds before each attempt; attempt n waits schedule[n-1] after the previous one. */
  schedule: number[];
  timeoutMs: number;
  concurrency: number;
  lookup: SendOptions['lookup'];
  connectRefusal: SendOptions['connectRefusal'];
  pollMs?: number;
}

/** How long a claimed (or freshly scheduled) attempt belongs to this instance. */
export const leaseFor = (timeoutMs: number): number => timeoutMs * 3 + 5_000;

interface Job {
  item: DueItem<DuePayload>;
  delivery?: DeliveryDoc;
  /** Whether the attempt has a due entry to remove when it ends (a first attempt has none, unless it outlasted the handler's wait). */
  queued: boolean;
  /** The due entry written for a first attempt still open when the handler stopped waiting. */
  protect?: Promise<void>;
  finished?: boolean;
  done?: () => void;
}

/** How long the event handler waits for first attempts before it covers the rest with due entries and lets the offset commit. */
const FIRST_ATTEMPT_WAIT_MS = 5_000;

/** Receivers asking to slow down (429, 502, 504) are waited for as long as they say, up to a day. */
const HONOURS_RETRY_AFTER = new Set([429, 502, 504]);
const MAX_RETRY_AFTER_S = 86_400;
const jitter = (ms: number) => ms * (0.9 + Math.random() * 0.2);

/**
 * Sends attempts: first attempts handed over by the event handler at once, later ones (and the
 * first attempts of an instance that died) claimed from the due queue (a lease, so instances never
 * send the same attempt twice). Each attempt is POSTed, recorded in the delivery log, and the next
 * one scheduled or the delivery ended.
 */
export class DeliveryWorker {
  private inFlight = 0;
  private readonly queue: Job[] = [];
  private timer: NodeJS.Timeout | undefined;
  private polling = false;
  private stopped = false;
  private readonly running = new Set<Promise<void>>();

  constructor(private readonly deps: WorkerDeps) {}

  start(): void {
    this.schedulePoll(0);
  }

  /** First attempts of new deliveries, sent as soon as there is room; resolves when all are recorded. */
  readonly attemptFirst = async (deliveries: DeliveryDoc[]): Promise<void> => {
    const jobs: Job[] = deliveries.map((delivery) => ({
      delivery,
      queued: false,
      item: { id: delivery._id, payload: { attempt: 1, endpointId: delivery.endpointId } },
    }));
    const all = Promise.all(jobs.map((job) => new Promise<void>((done) => (job.done = done))));
    this.queue.push(...jobs);
    this.pump();
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([all, new Promise((r) => (timer = setTimeout(r, FIRST_ATTEMPT_WAIT_MS)))]);
    clearTimeout(timer);
    // A slow receiver must not hold the consumer past its session: what is still open gets a due
    // entry a lease ahead (another instance takes it only if this one dies) and ends it itself.
    const open = jobs.filter((job) => !job.finished);
    if (open.length === 0) return;
    const protect = this.deps.deliveries.due.scheduleMany(
      open.map((job) => ({ id: job.item.id, dueAt: new Date(Date.now() + leaseFor(this.deps.timeoutMs)), payload: job.item.payload })),
    );
    for (const job of open) [job.queued, job.protect] = [true, protect];
    await protect;
  };

  private pump(): void {
    while (!this.stopped && this.inFlight < this.deps.concurrency && this.queue.length > 0) this.run(this.queue.shift()!);
  }

  /**
   * `concurrency` bounds the requests in flight, not the recording after them: an attempt's slot
   * is freed once its answer is in, while its record joins the next group write. Held through the
   * write, each slot waited for the database as long as for the receiver, which capped a fast
   * receiver at concurrency / write latency. The job is done (and its event's offset may commit)
   * only once recorded.
   */
  private run(job: Job): void {
    this.inFlight++;
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      this.inFlight--;
      this.pump();
    };
    const task = this.attempt(job, release)
      .catch((error: unknown) => {
        this.deps.logger.warn('a delivery attempt failed to run; it is retried after its lease', { error });
      })
      .finally(() => {
        release();
        this.running.delete(task);
        job.done?.();
      });
    this.running.add(task);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await Promise.all([...this.running]);
  }

  private schedulePoll(ms: number): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.poll(), ms);
  }

  private async poll(): Promise<void> {
    if (this.stopped || this.polling) return;
    this.polling = true;
    let claimed = 0;
    try {
      const room = this.deps.concurrency - this.inFlight - this.queue.length;
      // Claim only with room to spare: each claim reads the due queue.
      if (room >= Math.ceil(this.deps.concurrency / 2)) {
        const due = await this.deps.deliveries.due.claimDue(room, leaseFor(this.deps.timeoutMs));
        claimed = due.length;
        for (const item of due) this.queue.push({ item, queued: true });
        this.pump();
      }
    } catch (error) {
      this.deps.logger.warn('claiming due deliveries failed', { error });
    } finally {
      this.polling = false;
      if (!this.stopped) this.schedulePoll(claimed > 0 ? 50 : (this.deps.pollMs ?? 500));
    }
  }

  /** Sends one attempt and records it; `answered` is called once the receiver's answer (or its absence) is known. */
  private async attempt(job: Job, answered: () => void): Promise<void> {
    const { item, delivery: known } = job;
    const { id, payload } = item;
    const { endpoints, deliveries, schedule } = this.deps;
    const [delivery, endpoint] = await Promise.all([known ?? deliveries.delivery(id), endpoints.cachedById(payload.endpointId)]);
    // Synchronous with attemptFirst's check of `finished`: a job is either finished or protected.
    const finish = async () => {
      if (!job.queued) {
        job.finished = true;
        return;
      }
      await job.protect;
      await deliveries.due.done(id);
      job.finished = true;
    };
    if (!delivery) return finish();
    let result: SendResult;
    if (!endpoint || !endpoint.enabled) {
      result = {
        statusCode: null,
        latencyMs: 0,
        response: null,
        error: endpoint ? 'endpoint disabled' : 'endpoint deleted',
        retryAfterSeconds: null,
      };
    } else {
      result = await this.deps.send({
        url: endpoint.url,
        webhookId: delivery._id,
        attempt: payload.attempt,
        payload: delivery.payload,
        secrets: endpoints.signingSecrets(endpoint),
        signatureHeaders: signatureHeadersOf(delivery.format ?? 'standard'),
        timeoutMs: this.deps.timeoutMs,
        lookup: this.deps.lookup,
        connectRefusal: this.deps.connectRefusal,
      });
    }
    answered();
    const ok = result.statusCode !== null && result.statusCode >= 200 && result.statusCode < 300;
    const gone = result.statusCode === 410;
    const hasNext = !payload.manual && endpoint?.enabled === true && !gone && payload.attempt < schedule.length;
    const outcome: AttemptOutcome = ok ? 'succeeded' : hasNext ? 'retrying' : 'failed';
    if (gone && endpoint) await endpoints.disable(endpoint._id, 'the receiver answered 410 Gone');
    // The next attempt is scheduled before this one is recorded: a crash in between repeats an
    // attempt rather than losing the delivery.
    let nextAttemptAt: Date | null = null;
    if (outcome === 'retrying') {
      await job.protect; // the retry replaces the protecting entry, never the other way round
      let waitMs = jitter(schedule[payload.attempt]!);
      if (result.statusCode !== null && HONOURS_RETRY_AFTER.has(result.statusCode) && result.retryAfterSeconds !== null) {
        waitMs = Math.max(waitMs, Math.min(result.retryAfterSeconds, MAX_RETRY_AFTER_S) * 1000);
      }
      nextAttemptAt = new Date(Date.now() + waitMs);
      await deliveries.due.schedule(id, nextAttemptAt, { ...payload, attempt: payload.attempt + 1 });
    }
    await deliveries.recordAttempt({
      _id: attemptIdOf(id, payload.attempt),
      deliveryId: id,
      endpointId: delivery.endpointId,
      attempt: payload.attempt,
      at: new Date(),
      statusCode: result.statusCode,
      latencyMs: result.latencyMs,
      response: result.response,
      error: result.error,
      outcome,
      nextAttemptAt,
    });
    if (outcome !== 'retrying') await finish();
    else job.finished = true;
  }
}
