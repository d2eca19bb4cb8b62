import { createHash } from 'node:crypto';
import { Schema, type Connection } from 'mongoose';
import { GroupCommit, growing, insertNew, isDuplicateKeyError, SequenceLists } from '@postbus/db';

/**
 * Whose Idempotency-Keys: a client's live API keys' (full and sdk keys share them, as they send the
 * same mail), or its test keys', which are apart. Otherwise a live send repeating a key a test send
 * used would be answered with the test message, and its mail never sent.
 */
export interface IdempotencyOwner {
  clientId: string;
  /** The request came with a test key (scope `test`). */
  test: boolean;
}

/**
 * The first request with a key claims it; its answer is stored beside it (both append-only).
 * Both are addressed by `_id` alone (a hash of owner and key), so each request with an
 * Idempotency-Key costs point reads and inserts at any size of the collections.
 */
interface ClaimDoc {
  _id: string;
  clientId: string;
  /** A test key's; absent on a live key's record, as on every record written before test keys had their own. */
  test?: true;
  key: string;
  fingerprint: string;
  createdAt: Date;
  /**
   * Drawn when the key is claimed, and kept for every retry while the claim lives: what the request
   * creates is named from it, so a retry names the same message as an attempt whose write landed
   * after it was answered 503. Absent on claims made before it.
   */
  nonce?: string;
  /** When the last attempt started, if a retry took the claim over. */
  attemptAt?: Date;
  /** The last attempt failed on our side (nothing was answered): a retry may take the claim over. */
  failedAt?: Date;
}

export interface StoredResponse {
  clientId: string;
  /** See ClaimDoc. */
  test?: true;
  key: string;
  fingerprint: string;
  status: number;
  /** Null when withheld. */
  body: unknown;
  /** The answer held a secret: it was not stored, and a replay is refused. */
  withheld?: boolean;
  createdAt: Date;
}

// No index beyond `_id`: every read, insert and delete names one `_id`. Both grow with traffic.
const claimSchema = growing(
  new Schema<ClaimDoc>(
    {
      _id: String,
      clientId: String,
      test: Boolean,
      key: String,
      fingerprint: String,
      createdAt: Date,
      nonce: String,
      attemptAt: Date,
      failedAt: Date,
    },
    { collection: 'idempotency_claims', versionKey: false },
  ),
);

const responseSchema = growing(
  new Schema<StoredResponse & { _id: string }>(
    {
      _id: String,
      clientId: String,
      test: Boolean,
      key: String,
      fingerprint: String,
      status: Number,
      body: Schema.Types.Mixed,
      withheld: Boolean,
      createdAt: Date,
    },
    { collection: 'idempotency_responses', versionKey: false, minimize: false },
  ),
);

export type ClaimResult =
  | { claimed: true; nonce: string }
  | { claimed: false; fingerprint: string; createdAt: Date; nonce: string; attemptAt?: Date; failedAt?: Date };

/**
 * The records of one owner's key: a hash, so that the id has a bounded length and says nothing of
 * the key. A live key's is the form every record had before test keys got their own, so records
 * written before still replay; a test key's hashes one line more. A key is printable ASCII without
 * a line break, so the two forms never meet.
 */
export const idempotencyIdOf = ({ clientId, test }: IdempotencyOwner, key: string): string =>
  createHash('sha256')
    .update(test ? `test\n${clientId}\n${key}` : `${clientId}\n${key}`)
    .digest('hex');

/** The owner's fields on its records: a live key's records hold none, as before. */
const ownerFields = ({ clientId, test }: IdempotencyOwner): Pick<ClaimDoc, 'clientId' | 'test'> => ({
  clientId,
  ...(test ? { test: true as const } : {}),
});

/** The list of claims in the order they were made, which retention trims (SequenceLists: entries by `_id`). */
const CLAIMS_LIST = 'claims';
const PURGE_PARALLEL = 16;

/**
 * Idempotency records, kept for a retention window (expired ones are ignored on read and
 * replaced by a new claim). The local MongoDB-wire server has no TTL indexes, and a deleteMany
 * by date scans it and may name more documents than one statement holds: each claim is listed
 * as it is made, and purgeOlderThan() trims that list in resumable chunks of point deletes.
 */
export class IdempotencyRepository {
  private readonly Claim;
  private readonly Response;
  private readonly lists: SequenceLists;
  /** Concurrent requests' entries go in one append at a time: appends racing for one list's next number would retry each other. */
  private readonly listed: GroupCommit<string>;

  constructor(connection: Connection) {
    this.Claim = connection.model<ClaimDoc>('IdempotencyClaim', claimSchema);
    this.Response = connection.model<StoredResponse & { _id: string }>('IdempotencyResponse', responseSchema);
    this.lists = new SequenceLists(connection, 'idempotency_lists');
    this.listed = new GroupCommit(async (ids) => {
      const at = new Date();
      await this.lists.append(ids.map((value) => ({ list: CLAIMS_LIST, at, value })));
    });
  }

  async init(): Promise<void> {
    await Promise.all([this.Claim.init(), this.Response.init(), this.lists.init()]);
  }

  /** The stored answer to this key, unless it is older than `notBefore`. */
  async findResponse(owner: IdempotencyOwner, key: string, notBefore: Date): Promise<StoredResponse | null> {
    const found = await this.Response.findById(idempotencyIdOf(owner, key)).lean<StoredResponse>().exec();
    return found && found.createdAt >= notBefore ? found : null;
  }

  /**
   * Claims the key, or says who has it. A claim older than `notBefore` has expired (retention
   * has not removed it yet): it and its answer are removed and the key claimed anew.
   */
  async claim(
    owner: IdempotencyOwner,
    key: string,
    fingerprint: string,
    notBefore: Date,
    newNonce: (claimedAt: Date) => string,
  ): Promise<ClaimResult> {
    const _id = idempotencyIdOf(owner, key);
    // Listed first: a crash after the claim never leaves it out of retention's reach. An entry
    // whose claim was not made (the key was taken) is harmless: the purge checks each claim's age.
    await this.listed.add(_id);
    const createdAt = new Date();
    const nonce = newNonce(createdAt);
    for (let tries = 0; ; tries++) {
      if ((await insertNew(this.Claim, [{ _id, ...ownerFields(owner), key, fingerprint, createdAt, nonce }])).size === 0)
        return { claimed: true, nonce };
      const existing = await this.Claim.findById(_id).lean<ClaimDoc>().exec();
      if (existing && (existing.createdAt >= notBefore || tries >= 3))
        return {
          claimed: false,
          fingerprint: existing.fingerprint,
          createdAt: existing.createdAt,
          // A claim from before nonces: its id is as stable, and as unique.
          nonce: existing.nonce ?? existing._id,
          ...(existing.attemptAt ? { attemptAt: existing.attemptAt } : {}),
          ...(existing.failedAt ? { failedAt: existing.failedAt } : {}),
        };
      if (existing) await this.forget(_id); // expired; otherwise released meanwhile
    }
  }

  /** Gives a key back (its claim is forgotten), so that another request with it runs anew. */
  async release(owner: IdempotencyOwner, key: string): Promise<void> {
    await this.Claim.deleteOne({ _id: idempotencyIdOf(owner, key) }).exec();
  }

  /** The attempt failed on our side, though its writes may still land: a retry takes the claim over, with its nonce. */
  async failed(owner: IdempotencyOwner, key: string): Promise<void> {
    await this.Claim.updateOne({ _id: idempotencyIdOf(owner, key) }, { $set: { failedAt: new Date() } }).exec();
  }

  /** A retry takes over a failed or abandoned claim: in flight from now on. */
  async retake(owner: IdempotencyOwner, key: string): Promise<void> {
    await this.Claim.updateOne({ _id: idempotencyIdOf(owner, key) }, { $set: { attemptAt: new Date() }, $unset: { failedAt: 1 } }).exec();
  }

  async storeResponse(owner: IdempotencyOwner, response: Omit<StoredResponse, 'clientId' | 'test' | 'createdAt'>): Promise<void> {
    try {
      await this.Response.create({ ...response, ...ownerFields(owner), _id: idempotencyIdOf(owner, response.key), createdAt: new Date() });
    } catch (error) {
      if (!isDuplicateKeyError(error)) throw error;
    }
  }

  /**
   * Removes the records of claims made before `cutoff`, oldest first, in chunks of point deletes
   * (resumable: the list's tail moves after each chunk). A key claimed again since keeps its new records.
   */
  async purgeOlderThan(cutoff: Date): Promise<number> {
    let removed = 0;
    await this.lists.trim(CLAIMS_LIST, cutoff, async (ids) => {
      const pending = [...new Set(ids)];
      const workers = Array.from({ length: Math.min(PURGE_PARALLEL, pending.length) }, async () => {
        for (let id = pending.pop(); id !== undefined; id = pending.pop()) {
          const gone = await this.forgetIfOlder(id, cutoff);
          removed += gone;
        }
      });
      await Promise.all(workers);
    });
    return removed;
  }

  private async forgetIfOlder(_id: string, cutoff: Date): Promise<number> {
    const [claim, response] = await Promise.all([
      this.Claim.findById(_id, { createdAt: 1 }).lean<Pick<ClaimDoc, 'createdAt'>>().exec(),
      this.Response.findById(_id, { createdAt: 1 }).lean<Pick<StoredResponse, 'createdAt'>>().exec(),
    ]);
    let removed = 0;
    // The answer first: a claim without its answer is only an expired claim, never a wrong replay.
    if (response && response.createdAt < cutoff) removed += (await this.Response.deleteOne({ _id }).exec()).deletedCount;
    if (claim && claim.createdAt < cutoff) removed += (await this.Claim.deleteOne({ _id }).exec()).deletedCount;
    return removed;
  }

  private async forget(_id: string): Promise<void> {
    await this.Response.deleteOne({ _id }).exec();
    await this.Claim.deleteOne({ _id }).exec();
  }
}
