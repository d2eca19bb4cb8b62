import type { OpenErasure, UserRef } from '@postbus/contracts';

/** The erasure service's queue, as an erase request asks it. */
export interface ErasureQueue {
  /** The person's open erasure, and when a new one would run. */
  open(projectId: string, user: UserRef): Promise<OpenErasure>;
}
