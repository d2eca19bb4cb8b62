import { randomUUID } from 'node:crypto';
import { Schema, type Connection, type Model } from 'mongoose';
import type { Sealed, SecretBox } from '@postbus/crypto';
import type { ListedSubscriber, NewSubscriber, Subscriber, SubscriberStore } from '../domain/ports';

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
