import { Schema, type Connection } from 'mongoose';
import { insertNew } from '@postbus/db';
import type { ErasuresCarriedOut } from '../domain/ports/erasures';

interface ErasedDoc {
  _id: string;
  projectId: string;
  at: Date;
}

const erasedSchema = new Schema<ErasedDoc>({ _id: String, projectId: String, at: Date }, { collection: 'erasures', versionKey: false });

/**
 * The erasures this service has carried out, by erasure id (no personal data). The schedule and
 * the execution of an erasure travel on different topics, so a lagging `user.erasure_scheduled`
 * can arrive after the erasure: this is how it knows not to suppress a person erased already.
 */
export class ErasuresDone implements ErasuresCarriedOut {
  private readonly Erased;

  constructor(connection: Connection) {
    this.Erased = connection.model<ErasedDoc>('Erased', erasedSchema);
  }

  async init(): Promise<void> {
    await this.Erased.init();
  }

  /** Records an erasure as carried out (a repeat keeps the first time). */
  async record(erasureId: string, projectId: string, at: Date): Promise<void> {
    await insertNew(this.Erased, [{ _id: erasureId, projectId, at }]);
  }

  async has(erasureId: string): Promise<boolean> {
    return (await this.Erased.exists({ _id: erasureId }).exec()) !== null;
  }
}
