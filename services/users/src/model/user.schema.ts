import { Schema, type Connection, type Types } from 'mongoose';

export interface UserDoc {
  _id: Types.ObjectId;
  projectId: string;
  /** Normalised (trimmed, lower-cased): the primary key within a project. */
  email: string;
  userId: string | null;
  /**
   * `uid:<user_id>` or, without one, `email:<email>`: unique per project. The local MongoDB-wire
   * server has no partial indexes, so a unique index on a sometimes-null user_id is built this way.
   */
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
  /** Set while the user is queued for erasure (user.erasure_scheduled); the document goes when it runs. */
  erasure: UserErasureMark | null;
  createdAt: Date;
  updatedAt: Date;
}

export interface UserErasureMark {
  /** The erasure request's id. */
  id: string;
  eraseAt: Date;
}

const erasureMarkSchema = new Schema<UserErasureMark>(
  { id: { type: String, required: true }, eraseAt: { type: Date, required: true } },
  { _id: false },
);

const userSchema = new Schema<UserDoc>(
  {
    projectId: { type: String, required: true },
    email: { type: String, required: true },
    userId: { type: String, default: null },
    uidKey: { type: String, required: true },
    name: { type: String, default: null },
    country: { type: String, default: null },
    language: { type: String, default: null },
    gender: { type: String, default: null },
    age: { type: Number, default: null },
    fields: { type: Schema.Types.Mixed, default: () => ({}) },
    unsubscribedAt: { type: Date, default: null },
    unsubscribeReason: { type: String, default: null },
    createdBy: { type: String, default: null },
    erasure: { type: erasureMarkSchema, default: null },
  },
  { collection: 'users', timestamps: true, minimize: false, versionKey: false },
);
userSchema.index({ projectId: 1, email: 1 }, { unique: true });
userSchema.index({ projectId: 1, uidKey: 1 }, { unique: true });

/** A command that found no user yet: kept until its create arrives or the retry window ends. */
export interface ParkedCommandDoc {
  commandId: string;
  projectId: string;
  /** The user reference as `email:<email>` or `uid:<user_id>`. */
  ref: string;
  type: 'user.update' | 'user.unsubscribe';
  data: unknown;
  requestId: string | null;
  acceptedAt: Date;
}

const parkedSchema = new Schema<ParkedCommandDoc>(
  {
    commandId: { type: String, required: true },
    projectId: { type: String, required: true },
    ref: { type: String, required: true },
    type: { type: String, required: true },
    data: { type: Schema.Types.Mixed, required: true },
    requestId: { type: String, default: null },
    acceptedAt: { type: Date, required: true },
  },
  { collection: 'parked_commands', versionKey: false },
);
parkedSchema.index({ commandId: 1 }, { unique: true });
parkedSchema.index({ projectId: 1, ref: 1, acceptedAt: 1 });

export function userModels(connection: Connection) {
  return {
    User: connection.model<UserDoc>('User', userSchema),
    ParkedCommand: connection.model<ParkedCommandDoc>('ParkedCommand', parkedSchema),
  };
}
export type UserModels = ReturnType<typeof userModels>;
