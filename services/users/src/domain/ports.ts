import type { UserRef } from '@postbus/contracts';
import type { FieldChanges } from './fields';
import type { ParkedCommand, UserErasureMark, UserRecord } from './records';

/** A user a create stores: who they are, and the fields the create sets. */
export type NewUser = Pick<UserRecord, 'projectId' | 'email' | 'userId' | 'createdBy'> & { changes: FieldChanges };

/** Who an erasure names: any of the users service's id, the email and the user_id may be unknown. */
export interface ErasureTarget {
  projectId: string;
  id: string | null;
  email: string | null;
  userId: string | null;
}

/**
 * What the user commands need of the users' store (model/user.repository.ts): the users, found by
 * a ref or by id, stored and changed; and the commands parked until their user is created.
 */
export interface UserCommandStore {
  findByRef(projectId: string, ref: UserRef): Promise<UserRecord | null>;
  findById(id: string): Promise<UserRecord | null>;
  /** 'exists' when the email is taken, 'user_id_taken' when the user_id is. */
  insert(user: NewUser): Promise<UserRecord | 'exists' | 'user_id_taken'>;
  /** `notInserted`: the positions of the users to create one by one (an email or user_id met, or repeated). */
  insertMany(users: NewUser[]): Promise<{ inserted: UserRecord[]; notInserted: number[] }>;
  /** Claims the keys that name the user (its email and user_id). */
  claimKeys(user: UserRecord): Promise<'claimed' | 'email_taken' | 'user_id_taken'>;
  applyChanges(user: UserRecord, changes: FieldChanges): Promise<'applied' | 'user_id_taken'>;
  markUnsubscribed(user: UserRecord, reason: string | null, at: Date): Promise<void>;
  markResubscribed(user: UserRecord): Promise<void>;

  park(command: ParkedCommand): Promise<void>;
  /** The commands parked for these refs (`email:<email>` / `uid:<user_id>`), oldest first. */
  parkedFor(projectId: string, refs: string[]): Promise<ParkedCommand[]>;
  parkedById(commandId: string): Promise<ParkedCommand | null>;
  /** Forgets which commands were parked for these refs up to `upTo` (they were handled). */
  forgetParkedRefs(projectId: string, refs: string[], upTo: Date): Promise<void>;
  oldestParked(limit: number): Promise<ParkedCommand[]>;
  unpark(commandId: string): Promise<void>;
}

/** What an erasure needs of the users' store (model/user.repository.ts). */
export interface UserErasureStore {
  /** The users the erasure names, each once. */
  findErasureTargets(target: ErasureTarget): Promise<UserRecord[]>;
  markErasure(user: UserRecord, erasure: UserErasureMark): Promise<void>;
  /** Deletes the user and its keys; false when they were gone already. */
  delete(user: UserRecord): Promise<boolean>;
  /** Drops the commands parked for these refs accepted up to `before`; returns how many. */
  unparkAll(projectId: string, refs: string[], before: Date): Promise<number>;
}
