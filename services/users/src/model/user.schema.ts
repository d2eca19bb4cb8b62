import { growing, SequenceLists } from '@postbus/db';
import { Schema, type Connection, type Types } from 'mongoose';

export interface UserDoc {
  _id: Types.ObjectId;
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

const userSchema = growing(
  new Schema<UserDoc>(
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
  ),
);

/**
 * One way of naming a user in a project, `<projectId>:email:<email>` or `<projectId>:uid:<user_id>`,
 * pointing at the user's `_id`. Inserted with the user: the unique `_id` makes email and user_id
 * unique per project (what unique indexes did, which the embedded store serves only by scanning),
 * and every lookup by email or user_id is a point read, on MongoDB as on the embedded store.
 */
export interface UserKeyDoc {
  _id: string;
  /** The user's `_id` (hex). */
  user: string;
}

const userKeySchema = growing(new Schema<UserKeyDoc>({ _id: String, user: String }, { collection: 'user_keys', versionKey: false }));

/**
 * A command that found no user yet: kept until its create arrives or the retry window ends. The
 * collection stays small (commands leave it within the retry window); a user's parked commands are
 * found through the list of their ref (see UserRepository), by `_id`.
 */
export interface ParkedCommandDoc {
  /** The command id. */
  _id?: string;
  commandId: string;
  projectId: string;
  /** The user reference as `email:<email>` or `uid:<user_id>`. */
  ref: string;
  type: 'user.update' | 'user.unsubscribe' | 'user.resubscribe';
  data: unknown;
  requestId: string | null;
  acceptedAt: Date;
}

const parkedSchema = new Schema<ParkedCommandDoc>(
  {
    _id: String,
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

export function userModels(connection: Connection) {
  return {
    User: connection.model<UserDoc>('User', userSchema),
    UserKey: connection.model<UserKeyDoc>('UserKey', userKeySchema),
    ParkedCommand: connection.model<ParkedCommandDoc>('ParkedCommand', parkedSchema),
    /** Per ref (`<projectId>:<email:…|uid:…>`), the ids of the commands parked for it, in arrival order. */
    parkedLists: new SequenceLists(connection, 'parked_lists'),
  };
}
export type UserModels = ReturnType<typeof userModels>;
