// What the erasure queue needs of its persistence: model/erasure.repository.ts implements it, start/ wires it.
import type { DueItem, KnownUser, UserName } from '@postbus/db';
import type { ConfirmationDoc, ErasureDoc, OpenRequestDoc } from './records';

/** The erasure queue's requests, open keys, confirmations and due entries (model/erasure.repository.ts: ErasureRepository). */
export interface ErasureStore {
  /** The users the users service announced: an erase names a user by email or by user_id, and is about both. */
  readonly users: { find(projectId: string, name: UserName): Promise<KnownUser | null> };
  readonly due: { done(erasureId: string): Promise<void> };
  /** Every way a person is named in a project, as open-request keys. */
  personKeys(projectId: string, who: { email: string | null; userId: string | null }): string[];
  /** The open request of a person named by any of these keys. */
  openRequest(keys: string[]): Promise<OpenRequestDoc | null>;
  /** Claims one key of a person for an erasure; returns the erasure that holds it (this one, or one that claimed it first). */
  claimKey(key: string, erasureId: string, eraseAt: Date): Promise<string>;
  /** Records that a duplicate request's id stands for an open erasure. */
  alias(id: string, erasureId: string): Promise<void>;
  /** Records a request, its open keys and its due entry. */
  open(erasure: ErasureDoc, keys: string[]): Promise<void>;
  /** The erasures due (or whose lease ran out), each claimed for `leaseMs`. */
  claimDue(limit: number, leaseMs: number): Promise<Array<DueItem<Record<string, never>>>>;
  byId(id: string): Promise<ErasureDoc | null>;
  markExecuting(id: string, at: Date): Promise<void>;
  /** Stores a confirmation and returns all of the erasure's. */
  confirm(confirmation: ConfirmationDoc): Promise<ConfirmationDoc[]>;
  confirmations(erasureIds: string[]): Promise<Map<string, ConfirmationDoc[]>>;
  /** The erasure is complete; its sweep is due at `sweepAt`. */
  complete(erasure: ErasureDoc, completedAt: Date, sweepAt: Date): Promise<void>;
  /** Drops the person's identifiers from the record (after the sweep). */
  forgetSubject(erasure: ErasureDoc): Promise<void>;
}
