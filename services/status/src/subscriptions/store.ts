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
}

export class InMemorySubscriberStore implements SubscriberStore {
  private readonly byId = new Map<string, Subscriber>();

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
    return Promise.resolve(this.byId.delete(id));
  }

  listConfirmed(): Promise<Subscriber[]> {
    return Promise.resolve([...this.byId.values()].filter((s) => s.confirmedAt !== null).map((s) => ({ ...s })));
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
}

const subscriberSchema = new Schema<SubscriberDocument>(
  {
    _id: { type: String, required: true },
    kind: { type: String, enum: ['email', 'webhook'], required: true },
    address: { type: String, required: true },
    secret: { type: Schema.Types.Mixed, default: null },
    confirmedAt: { type: Date, default: null },
    createdAt: { type: Date, required: true },
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
}
