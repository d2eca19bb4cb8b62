import { Schema, Types, type Connection } from 'mongoose';
import { isDuplicateKeyError, KeyedSerializer } from '@postbus/db';
import type { Sealed } from '../domain/secret-box';
import type { DnsRecord, RecordCheck } from '../domain/sender-domain';

export type SenderDomainStatus = 'pending' | 'verified' | 'failed';

export interface SenderDomainDoc {
  _id: Types.ObjectId;
  clientId: string;
  domain: string;
  selector: string;
  publicKey: string;
  /** The DKIM private key, AES-256-GCM sealed; never returned by the API. */
  privateKey: Sealed;
  records: DnsRecord[];
  status: SenderDomainStatus;
  checks: RecordCheck[] | null;
  checkedAt: Date | null;
  verifiedAt: Date | null;
  createdAt: Date;
}

const senderDomainSchema = new Schema<SenderDomainDoc>(
  {
    clientId: { type: String, required: true },
    domain: { type: String, required: true },
    selector: { type: String, required: true },
    publicKey: { type: String, required: true },
    privateKey: { type: Schema.Types.Mixed, required: true },
    records: { type: Schema.Types.Mixed, required: true },
    status: { type: String, required: true, default: 'pending' },
    checks: { type: Schema.Types.Mixed, default: null },
    checkedAt: { type: Date, default: null },
    verifiedAt: { type: Date, default: null },
    createdAt: { type: Date, required: true },
  },
  { collection: 'sender_domains', versionKey: false, minimize: false },
);
senderDomainSchema.index({ clientId: 1, domain: 1 }, { unique: true });

/** Sender domains, each owned by one client; another client's domain reads as missing. */
export class SenderDomainRepository {
  private readonly SenderDomain;
  /** Changes of one domain one at a time (see KeyedSerializer). */
  private readonly perDomain = new KeyedSerializer();

  constructor(connection: Connection) {
    this.SenderDomain = connection.model<SenderDomainDoc>('SenderDomain', senderDomainSchema);
  }

  async init(): Promise<void> {
    await this.SenderDomain.init();
  }

  /** 'exists' when the client has this domain already. */
  async create(doc: Omit<SenderDomainDoc, '_id'>): Promise<SenderDomainDoc | 'exists'> {
    try {
      return (await this.SenderDomain.create(doc)).toObject();
    } catch (error) {
      if (isDuplicateKeyError(error)) return 'exists';
      throw error;
    }
  }

  list(clientId: string): Promise<SenderDomainDoc[]> {
    return this.SenderDomain.find({ clientId }).sort({ createdAt: 1 }).lean<SenderDomainDoc[]>().exec();
  }

  async get(clientId: string, id: string): Promise<SenderDomainDoc | null> {
    if (!Types.ObjectId.isValid(id)) return null;
    return this.SenderDomain.findOne({ _id: id, clientId }).lean<SenderDomainDoc>().exec();
  }

  async recordCheck(clientId: string, id: string, checks: RecordCheck[], at: Date): Promise<SenderDomainDoc | null> {
    const verified = checks.every((c) => c.ok || !c.required);
    const set = { checks, checkedAt: at, status: verified ? 'verified' : 'failed', ...(verified ? { verifiedAt: at } : {}) };
    return this.perDomain.run(id, () =>
      this.SenderDomain.findOneAndUpdate({ _id: id, clientId }, { $set: set }, { new: true }).lean<SenderDomainDoc>().exec(),
    );
  }

  async delete(clientId: string, id: string): Promise<boolean> {
    if (!Types.ObjectId.isValid(id)) return false;
    return (await this.SenderDomain.deleteOne({ _id: id, clientId }).exec()).deletedCount === 1;
  }
}
