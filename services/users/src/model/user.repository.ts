import { createHash } from 'node:crypto';
import { GroupCommit, insertEach, insertNew, KeyedSerializer } from '@postbus/db';
import type { UserRef } from '@postbus/contracts';
import { Types } from 'mongoose';
import { refKey, uidKeyOf, type FieldChanges } from '../domain/fields';
import type { ErasureTarget, NewUser, UserCommandStore, UserErasureStore } from '../domain/ports';
import type { ParkedCommand, UserErasureMark, UserRecord } from '../domain/records';
import type { ParkedCommandDoc, UserDoc, UserKeyDoc, UserModels } from './user.schema';

const OBJECT_ID = /^[a-f0-9]{24}$/i;
/** Point reads or writes in flight at once for one batch. */
const PARALLEL = 16;
/** Email keys remembered as taken (a few MB at most); the memory starts again when full. */
const KNOWN_KEYS_LIMIT = 100_000;

/** The `_id` of the key document naming a user: `<projectId>:email:<email>` or `<projectId>:uid:<user_id>`. */
export const userKeyId = (projectId: string, ref: UserRef): string => `${projectId}:${refKey(ref)}`;

/** Whether the user is the one the ref names (a key may outlive a change it missed, e.g. after a crash). */
const isNamedBy = (user: UserRecord, projectId: string, ref: UserRef): boolean =>
  user.projectId === projectId && (ref.email !== undefined ? user.email === ref.email : user.userId === ref.userId);

/**
 * The `_id` of the user a command creates, derived from the command: its redelivery after a crash
 * meets the document it stored before instead of storing a second one that no key would name.
 */
function userDocumentId(user: Pick<NewUser, 'projectId' | 'email' | 'createdBy'>): Types.ObjectId {
  if (user.createdBy === null) return new Types.ObjectId();
  const digest = createHash('sha256').update(`${user.createdBy}\n${user.projectId}\n${user.email}`).digest();
  return new Types.ObjectId(digest.subarray(0, 12));
}

function toDocument(user: NewUser): Partial<UserDoc> {
  const custom: Record<string, unknown> = {};
  const standard: Record<string, unknown> = {};
  for (const [path, value] of Object.entries(user.changes.set)) {
    if (path.startsWith('fields.')) custom[path.slice('fields.'.length)] = value;
    else standard[path] = value;
  }
  return {
    _id: userDocumentId(user),
    projectId: user.projectId,
    email: user.email,
    userId: user.userId,
    uidKey: uidKeyOf(user.email, user.userId),
    createdBy: user.createdBy,
    ...standard,
    fields: custom,
  };
}

async function inParallel<T, R>(items: T[], work: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const i = next++;
      results[i] = await work(items[i]!, i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(PARALLEL, items.length) }, worker));
  return results;
}

/**
 * Every read and write of the users service's own collections. Each is a point operation by `_id`
 * or an insert: a user is found by email or user_id through its key documents (`user_keys`), and
 * the commands parked for a ref through that ref's list; both hold on MongoDB with the `_id` index
 * alone and on the embedded store at any size.
 */
export class UserRepository implements UserCommandStore, UserErasureStore {
  /** Updates of one user one at a time (see KeyedSerializer). */
  private readonly perUser = new KeyedSerializer();
  /**
   * Email keys this process has seen taken. Only a hint: a key remembered here sends its create
   * down the path for existing users, which reads the user and copes with one erased since.
   */
  private readonly knownEmailKeys = new Set<string>();

  constructor(private readonly models: UserModels) {}

  async init(): Promise<void> {
    await Promise.all([
      this.models.User.init(),
      this.models.UserKey.init(),
      this.models.ParkedCommand.init(),
      this.models.parkedLists.init(),
    ]);
  }

  /** The user a ref names: two point reads (the key, then the user). */
  async findByRef(projectId: string, ref: UserRef): Promise<UserDoc | null> {
    const key = await this.models.UserKey.findById(userKeyId(projectId, ref)).lean<UserKeyDoc>().exec();
    if (!key || !OBJECT_ID.test(key.user)) return null;
    const user = await this.findById(key.user);
    return user && isNamedBy(user, projectId, ref) ? user : null;
  }

  async findById(id: string): Promise<UserDoc | null> {
    return this.models.User.findById(id).lean<UserDoc>().exec();
  }

  /**
   * Inserts the user, then its keys; 'exists' when the email is taken, 'user_id_taken' when the
   * user_id is (the user document goes again). A crash between the two leaves a user document no
   * key names, never read; the redelivered create meets it (same `_id`) and claims its keys.
   */
  async insert(user: NewUser): Promise<UserDoc | 'exists' | 'user_id_taken'> {
    const [inserted] = await insertEach(this.models.User, [toDocument(user)]);
    const doc = inserted ?? (await this.findById(String(userDocumentId(user))));
    if (!doc) throw new Error('the user document this create stored is gone: a concurrent erasure; the create goes again');
    const result = await this.claimKeys(doc);
    if (result === 'claimed') return doc;
    await this.models.User.deleteOne({ _id: doc._id }).exec();
    if (result === 'email_taken') {
      // The same create stored this user before a crash, perhaps before its user_id key: complete it.
      const existing = await this.findByRef(user.projectId, { email: user.email });
      if (existing && existing.createdBy === user.createdBy && existing.userId) await this.claimKeys(existing);
      return 'exists';
    }
    return 'user_id_taken';
  }

  /**
   * Inserts many users: the hot path of implicit registration. Concurrent callers (runs of
   * different partitions) share one insertMany and one insert of their keys. A new email costs no
   * read: its key's unique insert tells a taken one, whose user document then goes again. An email
   * seen taken before costs nothing here. Both are returned among `notInserted`, with the users
   * whose user_id another insert took first, for the caller to handle one by one.
   */
  async insertMany(users: NewUser[]): Promise<{ inserted: UserDoc[]; notInserted: number[] }> {
    const results = await Promise.all(users.map((user) => this.registrations.add(user)));
    const inserted: UserDoc[] = [];
    const notInserted: number[] = [];
    results.forEach((doc, i) => (doc ? inserted.push(doc) : notInserted.push(i)));
    return { inserted, notInserted };
  }

  private readonly registrations = new GroupCommit<NewUser, UserDoc | null>((users) => this.registerGroup(users));

  /** One group of registrations: each user's stored document, or null when it was not inserted. */
  private async registerGroup(users: NewUser[]): Promise<Array<UserDoc | null>> {
    const notInserted = new Set<number>();
    const seen = new Set<string>();
    users.forEach((u, i) => {
      const key = userKeyId(u.projectId, { email: u.email });
      if (this.knownEmailKeys.has(key) || seen.has(key)) notInserted.add(i);
      seen.add(key);
    });
    const candidates = users.map((_, i) => i).filter((i) => !notInserted.has(i));
    const results = new Array<UserDoc | null>(users.length).fill(null);
    if (candidates.length === 0) return results;
    const inserted = await insertEach(
      this.models.User,
      candidates.map((i) => toDocument(users[i]!)),
    );
    // A document that was there already was stored by the same command before a crash: create() completes it.
    const fresh = candidates.filter((_, k) => inserted[k] !== null);
    const stored = inserted.filter((doc): doc is UserDoc => doc !== null);
    const emailKeys = stored.map((u) => userKeyId(u.projectId, { email: u.email }));
    const emailTaken = await insertNew(
      this.models.UserKey,
      stored.map((u, k) => ({ _id: emailKeys[k]!, user: String(u._id) })),
    );
    for (const key of emailKeys) this.rememberEmailKey(key);
    const withUid = stored.map((u, k) => ({ u, k })).filter(({ u, k }) => u.userId && !emailTaken.has(k));
    const uidTaken = await insertNew(
      this.models.UserKey,
      withUid.map(({ u }) => ({ _id: userKeyId(u.projectId, { userId: u.userId! }), user: String(u._id) })),
    );
    const failed = new Set<number>([...emailTaken, ...[...uidTaken].map((j) => withUid[j]!.k)]);
    await inParallel([...failed], async (k) => {
      const u = stored[k]!;
      if (!emailTaken.has(k)) await this.models.UserKey.deleteOne({ _id: emailKeys[k]! }).exec();
      await this.models.User.deleteOne({ _id: u._id }).exec();
    });
    stored.forEach((u, k) => {
      if (!failed.has(k)) results[fresh[k]!] = u;
    });
    return results;
  }

  private rememberEmailKey(key: string): void {
    if (this.knownEmailKeys.size >= KNOWN_KEYS_LIMIT) this.knownEmailKeys.clear();
    this.knownEmailKeys.add(key);
  }

  /** Applies field changes; 'user_id_taken' when the new user_id belongs to someone else. */
  async applyChanges(user: UserRecord, changes: FieldChanges): Promise<'applied' | 'user_id_taken'> {
    const id = String(user._id);
    return this.perUser.run(id, async () => {
      const set: Record<string, unknown> = { ...changes.set };
      let oldUserId: string | null = null;
      if (changes.userId !== undefined) {
        const current = (await this.findById(id)) ?? user;
        if (changes.userId !== current.userId) {
          if (changes.userId !== null && !(await this.claimKey(current, { userId: changes.userId }))) return 'user_id_taken';
          oldUserId = current.userId;
        }
        set['userId'] = changes.userId;
        set['uidKey'] = uidKeyOf(user.email, changes.userId);
      }
      const update: Record<string, unknown> = { $set: set };
      if (changes.unset.length) update['$unset'] = Object.fromEntries(changes.unset.map((p) => [p, '']));
      await this.models.User.updateOne({ _id: id }, update).exec();
      // The old user_id names them no more (after the update: a crash in between leaves a key isNamedBy refuses).
      if (oldUserId) await this.dropKey(user.projectId, { userId: oldUserId }, id);
      return 'applied';
    });
  }

  /** The caller has checked that the user is subscribed. */
  async markUnsubscribed(user: UserRecord, reason: string | null, at: Date): Promise<void> {
    await this.setFields(user, { unsubscribedAt: at, unsubscribeReason: reason });
  }

  /** Subscribed again: the unsubscribe and its reason are gone. */
  async markResubscribed(user: UserRecord): Promise<void> {
    await this.setFields(user, { unsubscribedAt: null, unsubscribeReason: null });
  }

  /** The users an erasure names, each once: one point lookup per way of naming them; normally they all find the same user. */
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
  async markErasure(user: UserRecord, erasure: UserErasureMark): Promise<void> {
    await this.setFields(user, { erasure });
  }

  /** Sets fields of the user (after any write to it in progress). */
  private async setFields(user: UserRecord, fields: Partial<UserRecord>): Promise<void> {
    const id = String(user._id);
    await this.perUser.run(id, () => this.models.User.updateOne({ _id: id }, { $set: fields }).exec());
  }

  /** Deletes the user and its keys (after any write to them in progress); false when they were gone already. */
  async delete(user: UserRecord): Promise<boolean> {
    const id = String(user._id);
    return this.perUser.run(id, async () => {
      // Keys first: a crash in between leaves a user no key names, never a key naming no one.
      this.knownEmailKeys.delete(userKeyId(user.projectId, { email: user.email }));
      await this.dropKey(user.projectId, { email: user.email }, id);
      if (user.userId) await this.dropKey(user.projectId, { userId: user.userId }, id);
      const { deletedCount } = await this.models.User.deleteOne({ _id: id }).exec();
      return deletedCount > 0;
    });
  }

  /** Drops the commands parked for these refs (`email:<email>` / `uid:<user_id>`) accepted up to `before`; returns how many. */
  async unparkAll(projectId: string, refs: string[], before: Date): Promise<number> {
    const due = (await this.parkedFor(projectId, refs)).filter((p) => new Date(p.acceptedAt) <= before);
    const deleted = await inParallel(due, (p) => this.models.ParkedCommand.deleteOne({ _id: p.commandId }).exec());
    return deleted.reduce((sum, r) => sum + r.deletedCount, 0);
  }

  /**
   * Parks a command: its id goes on its ref's list first, then the command; a crash in between
   * leaves an id that names nothing (skipped), and the redelivery parks it again.
   */
  async park(command: ParkedCommand): Promise<void> {
    await this.models.parkedLists.append([{ list: `${command.projectId}:${command.ref}`, at: new Date(), value: command.commandId }]);
    await insertNew(this.models.ParkedCommand, [{ ...command, _id: command.commandId }]); // parked already: a redelivery
  }

  /** The commands parked for these refs, oldest first: per ref, its list's entries and each command by `_id`. */
  async parkedFor(projectId: string, refs: string[]): Promise<ParkedCommandDoc[]> {
    const ids = new Set<string>();
    for (const ref of refs) {
      for (let before: number | undefined; ;) {
        const page = await this.models.parkedLists.page(`${projectId}:${ref}`, { limit: 100, ...(before ? { beforeSeq: before } : {}) });
        for (const entry of page.entries) ids.add(entry.value);
        if (page.next === null) break;
        before = page.next;
      }
    }
    const docs = await inParallel([...ids], (id) => this.parkedById(id));
    return docs
      .filter((d): d is ParkedCommandDoc => d !== null)
      .sort((a, b) => new Date(a.acceptedAt).getTime() - new Date(b.acceptedAt).getTime());
  }

  async parkedById(commandId: string): Promise<ParkedCommandDoc | null> {
    return this.models.ParkedCommand.findById(commandId).lean<ParkedCommandDoc>().exec();
  }

  /** Empties the lists of these refs up to now (their commands were handled). */
  async forgetParkedRefs(projectId: string, refs: string[], upTo: Date): Promise<void> {
    for (const ref of refs) await this.models.parkedLists.trim(`${projectId}:${ref}`, upTo);
  }

  /**
   * The oldest parked commands, for the sweep (a timer, not a request). The collection stays small
   * (a command leaves it within the retry window), so reading it whole is cheap on either store.
   */
  async oldestParked(limit: number): Promise<ParkedCommandDoc[]> {
    return this.models.ParkedCommand.find().sort({ acceptedAt: 1 }).limit(limit).lean<ParkedCommandDoc[]>().exec();
  }

  async unpark(commandId: string): Promise<void> {
    await this.models.ParkedCommand.deleteOne({ _id: commandId }).exec();
  }

  /** Claims the user's email key and, with a user_id, its uid key; a key left by a user who is gone or renamed is taken over. */
  async claimKeys(user: UserRecord): Promise<'claimed' | 'email_taken' | 'user_id_taken'> {
    if (!(await this.claimKey(user, { email: user.email }))) return 'email_taken';
    if (user.userId && !(await this.claimKey(user, { userId: user.userId }))) {
      await this.dropKey(user.projectId, { email: user.email }, String(user._id));
      return 'user_id_taken';
    }
    return 'claimed';
  }

  /** True when the key now names this user. */
  private async claimKey(user: UserRecord, ref: UserRef): Promise<boolean> {
    const _id = userKeyId(user.projectId, ref);
    const id = String(user._id);
    const taken = await insertNew(this.models.UserKey, [{ _id, user: id }]);
    if (taken.size === 0) return true;
    const holder = await this.models.UserKey.findById(_id).lean<UserKeyDoc>().exec();
    if (!holder || holder.user === id) return holder !== null;
    const other = OBJECT_ID.test(holder.user) ? await this.findById(holder.user) : null;
    if (other && isNamedBy(other, user.projectId, ref)) return false;
    // A key naming no one (its user was deleted or renamed before it went): it is free.
    await this.models.UserKey.replaceOne({ _id }, { user: id }).exec();
    return true;
  }

  /** Removes a key if it still names this user (another may hold it by now). */
  private async dropKey(projectId: string, ref: UserRef, id: string): Promise<void> {
    const _id = userKeyId(projectId, ref);
    const key = await this.models.UserKey.findById(_id).lean<UserKeyDoc>().exec();
    if (key?.user === id) await this.models.UserKey.deleteOne({ _id }).exec();
  }
}
