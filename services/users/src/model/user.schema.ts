import { growing, SequenceLists } from '@postbus/db';
import { Schema, type Connection, type Types } from 'mongoose';
import type { ParkedCommand, UserErasureMark, UserRecord } from '../domain/records';

/** A user as stored: the domain's record, with the ObjectId the store gives it. */
export interface UserDoc extends UserRecord {
  _id: Types.ObjectId;
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
 * A parked command as stored, by its command id. The collection stays small (commands leave it
 * within the retry window); a user's parked commands are found through the list of their ref (see
 * UserRepository), by `_id`.
 */
export interface ParkedCommandDoc extends ParkedCommand {
  _id: string;
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
