import { growing } from '@postbus/db';
import { Schema, type Connection } from 'mongoose';
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

const erasureSchema = growing(
  new Schema<ErasureDoc>(
    {
      _id: String,
      projectId: String,
      status: String,
      subjectId: { type: String, default: null },
      email: { type: String, default: null },
      userId: { type: String, default: null },
      emailHmac: { type: String, default: null },
      requestedAt: Date,
      eraseAt: Date,
      executedAt: { type: Date, default: null },
      completedAt: { type: Date, default: null },
      createdAt: Date,
    },
    // Read by `_id` only (a project's erasures through its list): no other index, on MongoDB either.
    { collection: 'erasures', versionKey: false },
  ),
);

/** A participant's confirmation: `_id` is `<erasure id>:<service>`, so a repeat adds nothing. */
export interface ConfirmationDoc {
  _id: string;
  erasureId: string;
  service: string;
  erased: Record<string, number>;
  at: Date;
}

const confirmationSchema = growing(
  new Schema<ConfirmationDoc>(
    { _id: String, erasureId: String, service: String, erased: Schema.Types.Mixed, at: Date },
    { collection: 'confirmations', versionKey: false, minimize: false },
  ),
);

/**
 * The open request of a person, under each way of naming them (`<projectId>:email:<email>`,
 * `<projectId>:uid:<user_id>`): a second erase finds the first. Removed when the erasure completes.
 */
export interface OpenRequestDoc {
  _id: string;
  erasureId: string;
  eraseAt: Date;
}

const openRequestSchema = growing(
  new Schema<OpenRequestDoc>({ _id: String, erasureId: String, eraseAt: Date }, { collection: 'open_requests', versionKey: false }),
);

/**
 * An erase that raced another for the same person (both asked before either was recorded) is the
 * same erasure: its id, which its caller got, leads to the first.
 */
export interface AliasDoc {
  _id: string;
  erasureId: string;
}

const aliasSchema = growing(new Schema<AliasDoc>({ _id: String, erasureId: String }, { collection: 'aliases', versionKey: false }));

export function erasureModels(connection: Connection) {
  return {
    Alias: connection.model<AliasDoc>('Alias', aliasSchema),
    Erasure: connection.model<ErasureDoc>('Erasure', erasureSchema),
    Confirmation: connection.model<ConfirmationDoc>('Confirmation', confirmationSchema),
    OpenRequest: connection.model<OpenRequestDoc>('OpenRequest', openRequestSchema),
  };
}
export type ErasureModels = ReturnType<typeof erasureModels>;
