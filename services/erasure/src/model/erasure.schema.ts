import { growing } from '@postbus/db';
import { Schema, type Connection } from 'mongoose';
import type { ConfirmationDoc, ErasureDoc, OpenRequestDoc } from '../domain/records';

// The records as the domain describes them (domain/records.ts), each in its collection.
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

const confirmationSchema = growing(
  new Schema<ConfirmationDoc>(
    { _id: String, erasureId: String, service: String, erased: Schema.Types.Mixed, at: Date },
    { collection: 'confirmations', versionKey: false, minimize: false },
  ),
);

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
