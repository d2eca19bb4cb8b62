/** Who an erasure is about; either may be unknown. */
export interface ErasureTarget {
  projectId: string;
  email: string | null;
  userId: string | null;
}

/** The suppressions an erasure adds while it is pending and removes when it is carried out (model/suppression.repository.ts). */
export interface ErasureSuppressions {
  /** Suppresses a person whose erasure is scheduled, by address and by user id. */
  addErasure(target: ErasureTarget, at: Date): Promise<void>;
  /** Removes the erasure suppressions of a person (undoing an `addErasure` that lost a race with the erasure). */
  removeErasure(target: ErasureTarget): Promise<void>;
  /** Removes the suppressions of these addresses and of this user id stored before the erasure ran; returns how many went. */
  removeAll(projectId: string, emails: string[], userId: string | null, before: Date): Promise<number>;
}

/** The erasures this service has carried out, by erasure id (model/erasure.repository.ts). */
export interface ErasuresCarriedOut {
  /** Records an erasure as carried out (a repeat keeps the first time). */
  record(erasureId: string, projectId: string, at: Date): Promise<void>;
  has(erasureId: string): Promise<boolean>;
}
