import { isDuplicateKeyError, KeyedSerializer } from '@postbus/db';
import type { UserRef } from '@postbus/contracts';
import { uidKeyOf, type FieldChanges } from '../domain/fields';
import type { ParkedCommandDoc, UserDoc, UserErasureMark, UserModels } from './user.schema';

export type NewUser = Pick<UserDoc, 'projectId' | 'email' | 'userId' | 'createdBy'> & { changes: FieldChanges };

/** Who an erasure names: any of the users service's id, the email and the user_id may be unknown. */
export interface ErasureTarget {
  projectId: string;
  id: string | null;
  email: string | null;
  userId: string | null;
}

const OBJECT_ID = /^[a-f0-9]{24}$/i;

/** `email:<email>` or `uid:<user_id>`: how parked commands name the user they wait for. */
export const refKey = (ref: UserRef): string => (ref.email !== undefined ? `email:${ref.email}` : `uid:${ref.userId ?? ''}`);

function toDocument(user: NewUser): Partial<UserDoc> {
  const custom: Record<string, unknown> = {};
  const standard: Record<string, unknown> = {};
  for (const [path, value] of Object.entries(user.changes.set)) {
    if (path.startsWith('fields.')) custom[path.slice('fields.'.length)] = value;
    else standard[path] = value;
  }
  return {
    projectId: user.projectId,
    email: user.email,
    userId: user.userId,
    uidKey: uidKeyOf(user.email, user.userId),
    createdBy: user.createdBy,
    ...standard,
    fields: custom,
  };
}

/** Every read and write of the users service's own collections. */
export class UserRepository {
  /** Updates of one user one at a time (see KeyedSerializer). */
  private readonly perUser = new KeyedSerializer();

  constructor(private readonly models: UserModels) {}

  async findByRef(projectId: string, ref: UserRef): Promise<UserDoc | null> {
    const filter = ref.email !== undefined ? { projectId, email: ref.email } : { projectId, uidKey: `uid:${ref.userId ?? ''}` };
    return this.models.User.findOne(filter).lean<UserDoc>().exec();
  }

  async findById(id: string): Promise<UserDoc | null> {
    return this.models.User.findById(id).lean<UserDoc>().exec();
  }

  /** Inserts the user; 'exists' when the email is taken, 'user_id_taken' when the user_id is. */
  async insert(user: NewUser): Promise<UserDoc | 'exists' | 'user_id_taken'> {
    try {
      const doc = await this.models.User.create(toDocument(user));
      return doc.toObject();
    } catch (error) {
      if (!isDuplicateKeyError(error)) throw error;
      return (await this.findByRef(user.projectId, { email: user.email })) ? 'exists' : 'user_id_taken';
    }
  }

  /**
   * Inserts many users in one write (a fraction of the cost of one insert each on the local
   * MongoDB-wire server); returns the users inserted and the positions that were not (taken email
   * or user_id), for the caller to handle one by one.
   */
  async insertMany(users: NewUser[]): Promise<{ inserted: UserDoc[]; notInserted: number[] }> {
    try {
      const docs = await this.models.User.insertMany(users.map(toDocument), { ordered: false });
      return { inserted: docs.map((d) => d.toObject()), notInserted: [] };
    } catch (error) {
      const { insertedDocs, writeErrors } = error as {
        insertedDocs?: { toObject(): UserDoc }[];
        writeErrors?: { index: number; code?: number }[];
      };
      if (!isDuplicateKeyError(error) || !insertedDocs || !writeErrors || writeErrors.some((w) => w.code !== 11000)) throw error;
      return { inserted: insertedDocs.map((d) => d.toObject()), notInserted: writeErrors.map((w) => w.index).sort((a, b) => a - b) };
    }
  }

  /** Applies field changes; 'user_id_taken' when the new user_id belongs to someone else. */
  async applyChanges(user: UserDoc, changes: FieldChanges): Promise<'applied' | 'user_id_taken'> {
    const set: Record<string, unknown> = { ...changes.set };
    if (changes.userId !== undefined) {
      set['userId'] = changes.userId;
      set['uidKey'] = uidKeyOf(user.email, changes.userId);
    }
    const update: Record<string, unknown> = { $set: set };
    if (changes.unset.length) update['$unset'] = Object.fromEntries(changes.unset.map((p) => [p, '']));
    try {
      await this.perUser.run(String(user._id), () => this.models.User.updateOne({ _id: user._id }, update).exec());
      return 'applied';
    } catch (error) {
      if (isDuplicateKeyError(error)) return 'user_id_taken';
      throw error;
    }
  }

  async markUnsubscribed(user: UserDoc, reason: string | null, at: Date): Promise<void> {
    await this.perUser.run(String(user._id), () =>
      this.models.User.updateOne(
        { _id: user._id, unsubscribedAt: null },
        { $set: { unsubscribedAt: at, unsubscribeReason: reason } },
      ).exec(),
    );
  }

  /**
   * The users an erasure names, each once: one indexed lookup per way of naming them (the same ones
   * as every other read here); normally they all find the same user.
   */
  async findErasureTargets(target: ErasureTarget): Promise<UserDoc[]> {
    const { projectId, id, email, userId } = target;
    const found = await Promise.all([
      id !== null && OBJECT_ID.test(id) ? this.findById(id) : null,
      email !== null ? this.findByRef(projectId, { email }) : null,
      userId !== null ? this.findByRef(projectId, { userId }) : null,
    ]);
    const users = new Map<string, UserDoc>();
    for (const user of found) if (user && user.projectId === projectId) users.set(String(user._id), user);
    return [...users.values()];
  }

  /** Marks the user as queued for erasure; marking again with the same request changes nothing. */
  async markErasure(user: UserDoc, erasure: UserErasureMark): Promise<void> {
    await this.perUser.run(String(user._id), () => this.models.User.updateOne({ _id: user._id }, { $set: { erasure } }).exec());
  }

  /** Deletes the user (after any write to them in progress); false when they were gone already. */
  async delete(user: UserDoc): Promise<boolean> {
    const { deletedCount } = await this.perUser.run(String(user._id), () => this.models.User.deleteOne({ _id: user._id }).exec());
    return deletedCount > 0;
  }

  /** Drops the commands parked for these refs (`email:<email>` / `uid:<user_id>`) accepted up to `before`; returns how many. */
  async unparkAll(projectId: string, refs: string[], before: Date): Promise<number> {
    if (refs.length === 0) return 0;
    const { deletedCount } = await this.models.ParkedCommand.deleteMany({
      projectId,
      ref: { $in: refs },
      acceptedAt: { $lte: before },
    }).exec();
    return deletedCount;
  }

  async park(command: ParkedCommandDoc): Promise<void> {
    try {
      await this.models.ParkedCommand.create(command);
    } catch (error) {
      if (!isDuplicateKeyError(error)) throw error; // parked already: a redelivery
    }
  }

  async parkedFor(projectId: string, refs: string[]): Promise<ParkedCommandDoc[]> {
    return this.models.ParkedCommand.find({ projectId, ref: { $in: refs } })
      .sort({ acceptedAt: 1 })
      .lean<ParkedCommandDoc[]>()
      .exec();
  }

  async oldestParked(limit: number): Promise<ParkedCommandDoc[]> {
    return this.models.ParkedCommand.find().sort({ acceptedAt: 1 }).limit(limit).lean<ParkedCommandDoc[]>().exec();
  }

  async unpark(commandId: string): Promise<void> {
    await this.models.ParkedCommand.deleteOne({ commandId }).exec();
  }
}
