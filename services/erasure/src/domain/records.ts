// The records the erasure queue reads and writes; model/erasure.schema.ts stores them as they are.
import type { ErasureStatus } from '@postbus/contracts';

/**
 * One erase request, and after it completes its audit record: the person's identifiers are kept
 * only while the request is open (the services need them to find the data); then only ids, times
 * and a keyed hash of the email stay.
 */
export interface ErasureDoc {
  /** `era_<32 hex>`, chosen by the gateway. */
  _id: string;
  projectId: string;
  status: ErasureStatus;
  /** The users service's id of the user, when known; null once complete. */
  subjectId: string | null;
  /** Normalised; null once complete. */
  email: string | null;
  /** The client's user_id; null once complete. */
  userId: string | null;
  emailHmac: string | null;
  requestedAt: Date;
  eraseAt: Date;
  executedAt: Date | null;
  completedAt: Date | null;
  /** When the request was recorded: the list's order. */
  createdAt: Date;
}

/** A participant's confirmation: `_id` is `<erasure id>:<service>`, so a repeat adds nothing. */
export interface ConfirmationDoc {
  _id: string;
  erasureId: string;
  service: string;
  erased: Record<string, number>;
  at: Date;
}

/**
 * The open request of a person, under each way of naming them (`<projectId>:email:<email>`,
 * `<projectId>:uid:<user_id>`): a second erase finds the first. Removed when the erasure completes.
 */
export interface OpenRequestDoc {
  _id: string;
  erasureId: string;
  eraseAt: Date;
}
