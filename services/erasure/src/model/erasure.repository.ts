import type { Connection } from 'mongoose';
import type { ErasureStatus } from '@postbus/contracts';
import { DueQueue, insertNew, KnownUsers, knownUserKeys, type DueItem } from '@postbus/db';
import type { Position } from '@postbus/http';
import { erasureModels, type ConfirmationDoc, type ErasureDoc, type ErasureModels, type OpenRequestDoc } from './erasure.schema';

/** Every way a person is named in a project, as open-request keys (the same as the known users'). */
export const keysOf = knownUserKeys;

export interface ErasureFilter {
  projectIds: string[];
  status?: ErasureStatus;
}

/** Every read and write of the erasure service's own collections. */
export class ErasureRepository {
  private readonly models: ErasureModels;
  /** Erasures waiting for their time, then for their confirmations (see DueQueue: claims are safe with several instances). */
  readonly due: DueQueue<Record<string, never>>;
  /** The users the users service announced: an erase names a user by email or by user_id, and is about both. */
  readonly users: KnownUsers;

  constructor(connection: Connection) {
    this.models = erasureModels(connection);
    this.due = new DueQueue(connection, 'due_erasures');
    this.users = new KnownUsers(connection);
  }

  async init(): Promise<void> {
    await Promise.all([...Object.values(this.models).map((m) => m.init()), this.due.init(), this.users.init()]);
  }

  /** The open request of a person named by any of these keys. */
  async openRequest(keys: string[]): Promise<OpenRequestDoc | null> {
    if (keys.length === 0) return null;
    return this.models.OpenRequest.findOne({ _id: { $in: keys } })
      .lean<OpenRequestDoc>()
      .exec();
  }

  /** Records a request, its open keys and its due entry; every step is idempotent (a redelivered command repeats them). */
  async open(erasure: ErasureDoc, keys: string[]): Promise<void> {
    await insertNew(
      this.models.OpenRequest,
      keys.map((key) => ({ _id: key, erasureId: erasure._id, eraseAt: erasure.eraseAt })),
    );
    await insertNew(this.models.Erasure, [erasure]);
    await this.due.scheduleMany([{ id: erasure._id, dueAt: erasure.eraseAt, payload: {} }]);
  }

  async byId(id: string): Promise<ErasureDoc | null> {
    return this.models.Erasure.findById(id).lean<ErasureDoc>().exec();
  }

  /** The erasure, also when the id is that of a duplicate request that joined it. */
  async byIdOrAlias(id: string): Promise<ErasureDoc | null> {
    const erasure = await this.byId(id);
    if (erasure) return erasure;
    const alias = await this.models.Alias.findById(id).lean<{ erasureId: string }>().exec();
    return alias ? this.byId(alias.erasureId) : null;
  }

  /** Records that a duplicate request's id stands for an open erasure; idempotent. */
  async alias(id: string, erasureId: string): Promise<void> {
    await insertNew(this.models.Alias, [{ _id: id, erasureId }]);
  }

  /** Newest first, strictly older than the cursor position. */
  async page(filter: ErasureFilter, limit: number, after?: Position): Promise<ErasureDoc[]> {
    const query: Record<string, unknown> = { projectId: { $in: filter.projectIds } };
    if (filter.status) query['status'] = filter.status;
    if (after) query['$or'] = [{ createdAt: { $lt: after.createdAt } }, { createdAt: after.createdAt, _id: { $lt: after.id } }];
    return this.models.Erasure.find(query).sort({ createdAt: -1, _id: -1 }).limit(limit).lean<ErasureDoc[]>().exec();
  }

  claimDue(limit: number, leaseMs: number): Promise<Array<DueItem<Record<string, never>>>> {
    return this.due.claimDue(limit, leaseMs);
  }

  async markExecuting(id: string, at: Date): Promise<void> {
    await this.models.Erasure.updateOne({ _id: id, status: 'queued' }, { $set: { status: 'executing', executedAt: at } }).exec();
  }

  /** Stores a confirmation (a repeat adds nothing) and returns all of the erasure's. */
  async confirm(confirmation: ConfirmationDoc): Promise<ConfirmationDoc[]> {
    await insertNew(this.models.Confirmation, [confirmation]);
    return this.confirmations([confirmation.erasureId]).then((all) => all.get(confirmation.erasureId) ?? []);
  }

  async confirmations(erasureIds: string[]): Promise<Map<string, ConfirmationDoc[]>> {
    const byErasure = new Map<string, ConfirmationDoc[]>(erasureIds.map((id) => [id, []]));
    if (erasureIds.length === 0) return byErasure;
    const docs = await this.models.Confirmation.find({ erasureId: { $in: erasureIds } })
      .lean<ConfirmationDoc[]>()
      .exec();
    for (const d of docs) byErasure.get(d.erasureId)?.push(d);
    return byErasure;
  }

  /**
   * The erasure is complete: it is `completed` from now on, its open keys and the known user go,
   * and the sweep is due at `sweepAt`; the identifiers stay until the sweep. Idempotent.
   */
  async complete(erasure: ErasureDoc, completedAt: Date, sweepAt: Date): Promise<void> {
    await this.models.Erasure.updateOne(
      { _id: erasure._id },
      { $set: { status: 'completed', completedAt, executedAt: erasure.executedAt ?? completedAt } },
    ).exec();
    await this.models.OpenRequest.deleteMany({ erasureId: erasure._id }).exec();
    await this.users.forget(erasure.projectId, [erasure], erasure.subjectId);
    await this.due.schedule(erasure._id, sweepAt, {});
  }

  /** After the sweep the record keeps ids, times and the email's keyed hash: nothing that names the person. */
  async forgetSubject(erasure: ErasureDoc): Promise<void> {
    await this.models.Erasure.updateOne({ _id: erasure._id }, { $set: { subjectId: null, email: null, userId: null } }).exec();
  }
}
