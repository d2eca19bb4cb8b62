import { Schema, type Connection } from 'mongoose';
import { KeyedSerializer } from './keyed-serializer';

/** One way of naming a user the users service announced: `_id` is `<projectId>:email:<email>` or `<projectId>:uid:<user_id>`. */
export interface KnownUser {
  _id: string;
  projectId: string;
  /** The users service's id of the user. */
  id: string;
  email: string;
  userId: string | null;
}

/** A user as commands name them: by email or by the client's user_id. */
export interface UserName {
  email?: string | null;
  userId?: string | null;
}

/** Every key a user is known under in a project (email first). */
export const knownUserKeys = (projectId: string, who: UserName): string[] => [
  ...(who.email ? [`${projectId}:email:${who.email}`] : []),
  ...(who.userId ? [`${projectId}:uid:${who.userId}`] : []),
];

/**
 * A service's own projection of the users the users service announced (user.created, and user_id
 * changes in user.updated), so that it can take a user named by email or by user_id and know both:
 * one small document per way of naming a user, each pointing at all of them.
 */
export class KnownUsers {
  private readonly Model;
  /** Writes to one document one at a time (see KeyedSerializer). */
  private readonly perKey = new KeyedSerializer();

  constructor(connection: Connection, collection = 'users') {
    const schema = new Schema<KnownUser>(
      { _id: String, projectId: String, id: String, email: String, userId: { type: String, default: null } },
      { collection, versionKey: false },
    );
    schema.index({ id: 1 });
    this.Model = connection.model<KnownUser>(`KnownUser:${collection}`, schema);
  }

  async init(): Promise<void> {
    await this.Model.init();
  }

  /** The user named by email (or, without one, by user_id), if announced. */
  async find(projectId: string, name: UserName): Promise<KnownUser | null> {
    const [key] = knownUserKeys(projectId, name);
    return key ? this.Model.findById(key).lean<KnownUser>().exec() : null;
  }

  /** Every document of a user (by the users service's id). */
  async byId(projectId: string, id: string): Promise<KnownUser[]> {
    return this.Model.find({ id, projectId }).lean<KnownUser[]>().exec();
  }

  /** Remembers a user (user.created); idempotent. */
  async remember(user: Omit<KnownUser, '_id'>): Promise<void> {
    await Promise.all(
      knownUserKeys(user.projectId, user).map((key) =>
        this.perKey.run(key, () => this.Model.updateOne({ _id: key }, { $set: user }, { upsert: true }).exec()),
      ),
    );
  }

  /** A user's user_id changed (user.updated): the old one names them no more, the new one does. */
  async changeUserId(projectId: string, id: string, userId: string | null): Promise<void> {
    const known = (await this.byId(projectId, id)).find((k) => k._id.includes(':email:'));
    if (!known || known.userId === userId) return;
    if (known.userId) await this.forget(projectId, [{ userId: known.userId }], id);
    await this.remember({ projectId, id, email: known.email, userId });
  }

  /**
   * Forgets the names given; with the users service's id, only the documents of that user (another
   * user may have the address by now). Returns how many went.
   */
  async forget(projectId: string, names: UserName[], id: string | null): Promise<number> {
    const keys = [...new Set(names.flatMap((n) => knownUserKeys(projectId, n)))];
    const results = await Promise.all(
      keys.map((key) => this.perKey.run(key, () => this.Model.deleteOne({ _id: key, ...(id !== null ? { id } : {}) }).exec())),
    );
    return results.reduce((sum, r) => sum + r.deletedCount, 0);
  }
}
