import { Schema, type Connection } from 'mongoose';
import { isDuplicateKeyError } from '@postbus/db';

/** The first request with a key claims it; its answer is stored beside it (both append-only). */
interface ClaimDoc {
  clientId: string;
  key: string;
  fingerprint: string;
  createdAt: Date;
}

export interface StoredResponse {
  clientId: string;
  key: string;
  fingerprint: string;
  status: number;
  /** Null when withheld. */
  body: unknown;
  /** The answer held a secret: it was not stored, and a replay is refused. */
  withheld?: boolean;
  createdAt: Date;
}

const claimSchema = new Schema<ClaimDoc>(
  { clientId: String, key: String, fingerprint: String, createdAt: Date },
  { collection: 'idempotency_claims', versionKey: false },
);
claimSchema.index({ clientId: 1, key: 1 }, { unique: true });
claimSchema.index({ createdAt: 1 });

const responseSchema = new Schema<StoredResponse>(
  { clientId: String, key: String, fingerprint: String, status: Number, body: Schema.Types.Mixed, withheld: Boolean, createdAt: Date },
  { collection: 'idempotency_responses', versionKey: false, minimize: false },
);
responseSchema.index({ clientId: 1, key: 1 }, { unique: true });
responseSchema.index({ createdAt: 1 });

export type ClaimResult = { claimed: true } | { claimed: false; fingerprint: string; createdAt: Date };

/**
 * Idempotency records, kept for a retention window. The local MongoDB-wire server has no TTL
 * indexes, so expired records are removed by purgeOlderThan() on a schedule, and ignored on read.
 */
export class IdempotencyRepository {
  private readonly Claim;
  private readonly Response;

  constructor(connection: Connection) {
    this.Claim = connection.model<ClaimDoc>('IdempotencyClaim', claimSchema);
    this.Response = connection.model<StoredResponse>('IdempotencyResponse', responseSchema);
  }

  async init(): Promise<void> {
    await Promise.all([this.Claim.init(), this.Response.init()]);
  }

  findResponse(clientId: string, key: string, notBefore: Date): Promise<StoredResponse | null> {
    return this.Response.findOne({ clientId, key, createdAt: { $gte: notBefore } })
      .lean<StoredResponse>()
      .exec();
  }

  async claim(clientId: string, key: string, fingerprint: string): Promise<ClaimResult> {
    try {
      await this.Claim.create({ clientId, key, fingerprint, createdAt: new Date() });
      return { claimed: true };
    } catch (error) {
      if (!isDuplicateKeyError(error)) throw error;
      const existing = await this.Claim.findOne({ clientId, key }).lean<ClaimDoc>().exec();
      if (!existing) return this.claim(clientId, key, fingerprint); // released meanwhile
      return { claimed: false, fingerprint: existing.fingerprint, createdAt: existing.createdAt };
    }
  }

  /** Gives a key back (the request failed on our side), so that a retry can run. */
  async release(clientId: string, key: string): Promise<void> {
    await this.Claim.deleteOne({ clientId, key }).exec();
  }

  async storeResponse(response: Omit<StoredResponse, 'createdAt'>): Promise<void> {
    try {
      await this.Response.create({ ...response, createdAt: new Date() });
    } catch (error) {
      if (!isDuplicateKeyError(error)) throw error;
    }
  }

  async purgeOlderThan(cutoff: Date): Promise<number> {
    const [claims, responses] = await Promise.all([
      this.Claim.deleteMany({ createdAt: { $lt: cutoff } }).exec(),
      this.Response.deleteMany({ createdAt: { $lt: cutoff } }).exec(),
    ]);
    return claims.deletedCount + responses.deletedCount;
  }
}
