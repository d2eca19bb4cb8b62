import { createHash } from 'node:crypto';
import { Schema, type Connection } from 'mongoose';
import { DueQueue, GroupCommit, insertNew } from '@postbus/db';

/** One event for one endpoint: written once, never updated; its `_id` is the `webhook-id`. */
export interface DeliveryDoc {
  _id: string;
  endpointId: string;
  clientId: string;
  eventId: string;
  eventType: string;
  /** The exact body every attempt sends (and signs). */
  payload: string;
  createdAt: Date;
}

export type AttemptOutcome = 'succeeded' | 'retrying' | 'failed';

/** One attempt at a delivery, append-only: the delivery log. */
export interface AttemptDoc {
  _id: string;
  deliveryId: string;
  endpointId: string;
  attempt: number;
  at: Date;
  statusCode: number | null;
  latencyMs: number;
  /** The first bytes of the response body. */
  response: string | null;
  error: string | null;
  outcome: AttemptOutcome;
}

export type DeliveryStatus = 'pending' | 'succeeded' | 'failed';

/** What the due queue holds for a delivery: its next attempt number; `manual` for a retry by hand (one attempt). */
export interface DuePayload extends Record<string, unknown> {
  attempt: number;
  endpointId: string;
  manual?: boolean;
}

const deliverySchema = new Schema<DeliveryDoc>(
  { _id: String, endpointId: String, clientId: String, eventId: String, eventType: String, payload: String, createdAt: Date },
  { collection: 'deliveries', versionKey: false },
);
deliverySchema.index({ endpointId: 1, createdAt: -1 });

const attemptSchema = new Schema<AttemptDoc>(
  {
    _id: String,
    deliveryId: String,
    endpointId: String,
    attempt: Number,
    at: Date,
    statusCode: { type: Number, default: null },
    latencyMs: Number,
    response: { type: String, default: null },
    error: { type: String, default: null },
    outcome: String,
  },
  { collection: 'attempts', versionKey: false },
);
attemptSchema.index({ deliveryId: 1 });

/** The delivery of one event to one endpoint always has the same id, so a redelivered event adds nothing. */
export const deliveryIdOf = (eventId: string, endpointId: string): string =>
  `msg_${createHash('sha256').update(`${eventId}\n${endpointId}`).digest('hex').slice(0, 32)}`;

/** The status an attempt log adds up to: the last attempt's outcome, pending before any. */
export function statusOf(attempts: AttemptDoc[]): DeliveryStatus {
  const last = attempts.reduce<AttemptDoc | undefined>((a, b) => (!a || b.attempt >= a.attempt ? b : a), undefined);
  return !last || last.outcome === 'retrying' ? 'pending' : last.outcome;
}

/** Deliveries, their attempts, and the queue of due attempts. */
export class DeliveryStore {
  private readonly Delivery;
  private readonly Attempt;
  readonly due: DueQueue<DuePayload>;
  private readonly attemptWriter: GroupCommit<AttemptDoc>;

  constructor(connection: Connection) {
    this.Delivery = connection.model<DeliveryDoc>('Delivery', deliverySchema);
    this.Attempt = connection.model<AttemptDoc>('Attempt', attemptSchema);
    this.due = new DueQueue<DuePayload>(connection, 'due_attempts');
    this.attemptWriter = new GroupCommit(async (attempts) => {
      // An attempt recorded already (same id) is the same attempt.
      await insertNew(this.Attempt, attempts);
    });
  }

  async init(): Promise<void> {
    await Promise.all([this.Delivery.init(), this.Attempt.init(), this.due.init()]);
  }

  /**
   * Stores new deliveries; returns those that need a first attempt: the new ones, and ones stored
   * by an earlier try at this event that were never attempted nor scheduled (the process died
   * before attempting them). A delivery attempted already is left alone: sending it again would
   * repeat a finished delivery.
   */
  async add(deliveries: DeliveryDoc[]): Promise<DeliveryDoc[]> {
    if (deliveries.length === 0) return [];
    const existing = await insertNew(this.Delivery, deliveries);
    const firstAttempts = deliveries.filter((_, i) => !existing.has(i));
    const seen = deliveries.filter((_, i) => existing.has(i));
    if (seen.length > 0) {
      const attempts = await this.attempts(seen.map((d) => d._id));
      for (const d of seen) if (attempts.get(d._id)?.length === 0 && !(await this.due.pending(d._id))) firstAttempts.push(d);
    }
    return firstAttempts;
  }

  recordAttempt(attempt: AttemptDoc): Promise<void> {
    return this.attemptWriter.add(attempt);
  }

  async delivery(id: string): Promise<DeliveryDoc | null> {
    return this.Delivery.findById(id).lean<DeliveryDoc>().exec();
  }

  async deliveriesById(ids: string[]): Promise<Map<string, DeliveryDoc>> {
    if (ids.length === 0) return new Map();
    const docs = await this.Delivery.find({ _id: { $in: ids } })
      .lean<DeliveryDoc[]>()
      .exec();
    return new Map(docs.map((d) => [d._id, d]));
  }

  /** The attempts of some deliveries, each list in attempt order. */
  async attempts(ids: string[]): Promise<Map<string, AttemptDoc[]>> {
    const byDelivery = new Map<string, AttemptDoc[]>(ids.map((id) => [id, []]));
    if (ids.length === 0) return byDelivery;
    const docs = await this.Attempt.find({ deliveryId: { $in: ids } })
      .lean<AttemptDoc[]>()
      .exec();
    for (const d of docs) byDelivery.get(d.deliveryId)?.push(d);
    for (const list of byDelivery.values()) list.sort((a, b) => a.attempt - b.attempt);
    return byDelivery;
  }

  /**
   * The ids of the deliveries whose body matches `pattern` (a regular expression) and passes `keep`:
   * a scan, streamed, for the rare search by content (an erasure).
   */
  async idsMatching(pattern: string, keep: (payload: string) => boolean): Promise<string[]> {
    const ids: string[] = [];
    const cursor = this.Delivery.find({ payload: { $regex: pattern } }, { _id: 1, payload: 1 })
      .lean<Pick<DeliveryDoc, '_id' | 'payload'>>()
      .cursor();
    for await (const d of cursor) if (keep(d.payload)) ids.push(d._id);
    return ids;
  }

  /** Deletes deliveries, their attempts and their due attempts (erasure: the exception to append-only); counts what went. */
  async delete(ids: string[]): Promise<{ deliveries: number; attempts: number }> {
    if (ids.length === 0) return { deliveries: 0, attempts: 0 };
    await Promise.all(ids.map((id) => this.due.done(id)));
    const attempts = await this.Attempt.deleteMany({ deliveryId: { $in: ids } }).exec();
    // The deliveries last: a repeat after a crash in between still finds them, and finishes.
    const deliveries = await this.Delivery.deleteMany({ _id: { $in: ids } }).exec();
    return { deliveries: deliveries.deletedCount, attempts: attempts.deletedCount };
  }

  /** An endpoint's deliveries, newest first, strictly older than the cursor position. */
  page(endpointId: string, limit: number, after?: { createdAt: Date; id: string }, eventType?: string): Promise<DeliveryDoc[]> {
    const query: Record<string, unknown> = { endpointId };
    if (eventType) query['eventType'] = eventType;
    if (after) query['$or'] = [{ createdAt: { $lt: after.createdAt } }, { createdAt: after.createdAt, _id: { $lt: after.id } }];
    return this.Delivery.find(query).sort({ createdAt: -1, _id: -1 }).limit(limit).lean<DeliveryDoc[]>().exec();
  }
}
