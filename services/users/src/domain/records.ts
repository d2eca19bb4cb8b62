/**
 * The id the store gives a user (a MongoDB ObjectId in model/user.schema.ts). The domain only
 * reads it as a string, `String(user._id)`: the `id` that events and profiles carry.
 */
export interface RecordId {
  toString(): string;
}

/** A user as the users service keeps it. */
export interface UserRecord {
  _id: RecordId;
  projectId: string;
  /** Normalised (trimmed, lower-cased): the primary key within a project. */
  email: string;
  userId: string | null;
  /** `uid:<user_id>` or, without one, `email:<email>` (kept for the shape; uniqueness comes from the user keys). */
  uidKey: string;
  name: string | null;
  country: string | null;
  language: string | null;
  gender: string | null;
  age: number | null;
  fields: Record<string, unknown>;
  unsubscribedAt: Date | null;
  unsubscribeReason: string | null;
  /** The id of the command that created the user: a redelivered create is recognised by it. */
  createdBy: string | null;
  /** Set while the user is queued for erasure (user.erasure_scheduled); the user goes when it runs. */
  erasure: UserErasureMark | null;
  createdAt: Date;
  updatedAt: Date;
}

export interface UserErasureMark {
  /** The erasure request's id. */
  id: string;
  eraseAt: Date;
}

/** A command that found no user yet: kept until its create arrives or the retry window ends. */
export interface ParkedCommand {
  commandId: string;
  projectId: string;
  /** The user reference as `email:<email>` or `uid:<user_id>`. */
  ref: string;
  type: 'user.update' | 'user.unsubscribe' | 'user.resubscribe';
  data: unknown;
  requestId: string | null;
  acceptedAt: Date;
}
