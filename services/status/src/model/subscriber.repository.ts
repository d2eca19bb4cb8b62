import { randomUUID } from 'node:crypto';
import { Schema, type Connection, type Model } from 'mongoose';
import type { Sealed, SecretBox } from '@postbus/crypto';

/** Someone told about incidents and maintenance: an email address (after double opt-in) or a webhook URL. */
export interface Subscriber {
  id: string;
  kind: 'email' | 'webhook';
  /** The email address (lower case) or the webhook URL. An email address is PII: never log it. */
  address: string;
  /** Webhooks only: the Standard Webhooks signing secret (`whsec_…`). */
  secret: string | null;
  /** Null until the address confirmed (email); webhooks are confirmed when created. */
  confirmedAt: Date | null;
  createdAt: Date;
}

export type NewSubscriber = Omit<Subscriber, 'id' | 'createdAt'>;

/** A subscriber as listed to operators: never a secret. */
export type ListedSubscriber = Omit<Subscriber, 'secret'>;

/** Where subscribers live; the in-memory one serves tests, the mongoose one the service. */
export interface SubscriberStore {
  /** Adds one, or returns the existing subscriber of that kind and address (subscribing twice is one subscription). */
  add(subscriber: NewSubscriber, at: Date): Promise<Subscriber>;
  findById(id: string): Promise<Subscriber | null>;
  confirm(id: string, at: Date): Promise<void>;
  /** True when there was one to remove. */
  remove(id: string): Promise<boolean>;
  /** Everyone who should get notifications now. */
  listConfirmed(): Promise<Subscriber[]>;
  /** Every subscriber, confirmed or not, oldest first, without secrets (the operator's list). */
  list(): Promise<ListedSubscriber[]>;
  /** How many subscribers there are, confirmed or not. */
  count(): Promise<number>;
  /** Removes the subscribers still unconfirmed that were created before `before`; how many went. */
  removeUnconfirmed(before: Date): Promise<number>;
  /**
   * Claims the sending of a confirmation mail to an unconfirmed subscriber at `at`: true unless one
   * was claimed after `since` (or the subscriber is confirmed or gone). One claim wins however many
   * instances ask at once, and the claim outlives a restart.
   */
  claimConfirmation(id: string, at: Date, since: Date): Promise<boolean>;
}

export class InMemorySubscriberStore implements SubscriberStore {
  private readonly byId = new Map<string, Subscriber>();
  private readonly confirmationsSent = new Map<string, Date>();

  add(subscriber: NewSubscriber, at: Date): Promise<Subscriber> {
    const existing = [...this.byId.values()].find((s) => s.kind === subscriber.kind && s.address === subscriber.address);
    if (existing) return Promise.resolve({ ...existing });
    const created: Subscriber = { ...subscriber, id: randomUUID(), createdAt: at };
    this.byId.set(created.id, created);
    return Promise.resolve({ ...created });
  }

  findById(id: string): Promise<Subscriber | null> {
    const found = this.byId.get(id);
    return Promise.resolve(found ? { ...found } : null);
  }

  confirm(id: string, at: Date): Promise<void> {
    const found = this.byId.get(id);
    if (found && !found.confirmedAt) found.confirmedAt = at;
    return Promise.resolve();
  }

  remove(id: string): Promise<boolean> {
    this.confirmationsSent.delete(id);
    return Promise.resolve(this.byId.delete(id));
  }

  listConfirmed(): Promise<Subscriber[]> {
    return Promise.resolve([...this.byId.values()].filter((s) => s.confirmedAt !== null).map((s) => ({ ...s })));
  }

  list(): Promise<ListedSubscriber[]> {
    const all = [...this.byId.values()].sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime());
    return Promise.resolve(all.map(({ secret: _secret, ...listed }) => listed));
  }

  count(): Promise<number> {
    return Promise.resolve(this.byId.size);
  }

  async removeUnconfirmed(before: Date): Promise<number> {
    const expired = [...this.byId.values()].filter((s) => s.confirmedAt === null && s.createdAt < before);
    for (const subscriber of expired) await this.remove(subscriber.id);
    return expired.length;
  }

  claimConfirmation(id: string, at: Date, since: Date): Promise<boolean> {
    const subscriber = this.byId.get(id);
    const last = this.confirmationsSent.get(id);
    if (!subscriber || subscriber.confirmedAt || (last && last > since)) return Promise.resolve(false);
    this.confirmationsSent.set(id, at);
    return Promise.resolve(true);
  }
}

interface SubscriberDocument {
  _id: string;
  kind: 'email' | 'webhook';
  address: string;
  /** Sealed (AES-256-GCM); a string is a secret stored in clear before secrets were sealed. */
  secret: Sealed | string | null;
  confirmedAt: Date | null;
  createdAt: Date;
  /** When the last confirmation mail was claimed (unconfirmed email subscribers). */
  confirmationSentAt?: Date | null;
}

const subscriberSchema = new Schema<SubscriberDocument>(
  {
    _id: { type: String, required: true },
    kind: { type: String, enum: ['email', 'webhook'], required: true },
    address: { type: String, required: true },
    secret: { type: Schema.Types.Mixed, default: null },
    confirmedAt: { type: Date, default: null },
    createdAt: { type: Date, required: true },
    confirmationSentAt: { type: Date, default: null },
  },
  { versionKey: false, collection: 'status_subscribers' },
);
subscriberSchema.index({ kind: 1, address: 1 }, { unique: true });
subscriberSchema.index({ confirmedAt: 1 });

/**
 * Subscribers in the status service's database, on the connection the engine opened. A webhook's
 * signing secret is sealed at rest (as the webhook dispatcher's endpoint secrets are): whoever
 * reads the database cannot sign notifications its subscribers would trust.
 */
export class MongoSubscriberStore implements SubscriberStore {
  private readonly model: Model<SubscriberDocument>;

  constructor(
    connection: Connection,
    private readonly secrets: SecretBox,
    /** Told of a webhook whose secret the key cannot open (sealed under another key): it is left out of notifications. */
    private readonly onUnreadableSecret: (subscriberId: string) => void = () => undefined,
  ) {
    this.model = connection.models.StatusSubscriber ?? connection.model<SubscriberDocument>('StatusSubscriber', subscriberSchema);
  }

  private toSubscriber(doc: SubscriberDocument): Subscriber {
    const secret = doc.secret ?? null;
    return {
      id: doc._id,
      kind: doc.kind,
      address: doc.address,
      secret: secret === null || typeof secret === 'string' ? secret : this.open(doc._id, secret),
      confirmedAt: doc.confirmedAt ?? null,
      createdAt: doc.createdAt,
    };
  }

  private open(id: string, sealed: Sealed): string | null {
    try {
      return this.secrets.open(sealed);
    } catch {
      this.onUnreadableSecret(id);
      return null;
    }
  }

  async add(subscriber: NewSubscriber, at: Date): Promise<Subscriber> {
    // An upsert that only inserts: a second subscribe of the same address finds the first (and a race ends in one row).
    const doc = await this.model
      .findOneAndUpdate(
        { kind: subscriber.kind, address: subscriber.address },
        {
          $setOnInsert: {
            _id: randomUUID(),
            secret: subscriber.secret === null ? null : this.secrets.seal(subscriber.secret),
            confirmedAt: subscriber.confirmedAt,
            createdAt: at,
          },
        },
        { upsert: true, returnDocument: 'after' },
      )
      .lean<SubscriberDocument>()
      .exec();
    return this.toSubscriber(doc);
  }

  async findById(id: string): Promise<Subscriber | null> {
    const doc = await this.model.findById(id).lean<SubscriberDocument>().exec();
    return doc ? this.toSubscriber(doc) : null;
  }

  async confirm(id: string, at: Date): Promise<void> {
    await this.model.updateOne({ _id: id, confirmedAt: null }, { $set: { confirmedAt: at } }).exec();
  }

  async remove(id: string): Promise<boolean> {
    const result = await this.model.deleteOne({ _id: id }).exec();
    return result.deletedCount > 0;
  }

  async listConfirmed(): Promise<Subscriber[]> {
    const docs = await this.model
      .find({ confirmedAt: { $ne: null } })
      .lean<SubscriberDocument[]>()
      .exec();
    // A webhook that cannot be signed for is not notified (unsigned, its receiver would refuse it).
    return docs.map((doc) => this.toSubscriber(doc)).filter((s) => s.kind !== 'webhook' || s.secret !== null);
  }

  async list(): Promise<ListedSubscriber[]> {
    // The secrets stay in the database: a listing has no use for them, and nothing is unsealed.
    const docs = await this.model.find({}, { secret: 0, confirmationSentAt: 0 }).lean<Omit<SubscriberDocument, 'secret'>[]>().exec();
    return docs
      .map((doc) => ({ id: doc._id, kind: doc.kind, address: doc.address, confirmedAt: doc.confirmedAt ?? null, createdAt: doc.createdAt }))
      .sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime());
  }

  async count(): Promise<number> {
    return await this.model.estimatedDocumentCount().exec();
  }

  async removeUnconfirmed(before: Date): Promise<number> {
    // A scan (FerretDB uses no index but _id's), over a collection STATUS_SUBSCRIBERS_MAX keeps small.
    const result = await this.model.deleteMany({ confirmedAt: null, createdAt: { $lt: before } }).exec();
    return result.deletedCount;
  }

  async claimConfirmation(id: string, at: Date, since: Date): Promise<boolean> {
    const result = await this.model
      .updateOne(
        { _id: id, confirmedAt: null, $or: [{ confirmationSentAt: null }, { confirmationSentAt: { $lte: since } }] },
        { $set: { confirmationSentAt: at } },
      )
      .exec();
    return result.modifiedCount === 1;
  }
}
