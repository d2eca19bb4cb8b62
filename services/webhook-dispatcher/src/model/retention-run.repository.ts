import { Schema, type Connection } from 'mongoose';
import { isDuplicateKeyError } from '@postbus/db';
import type { RetentionClaims } from '../domain/ports';

/** Which instance purges in one interval: `_id` is `deliveries@<interval number>`, unique, so one insert wins. */
interface RunDoc {
  _id: string;
  at: Date;
}

const runSchema = new Schema<RunDoc>({ _id: String, at: Date }, { collection: 'retention_runs', versionKey: false });

/** The retention's claims on its intervals, so that one instance purges per interval. */
export class RetentionRuns implements RetentionClaims {
  private readonly Run;

  constructor(connection: Connection) {
    this.Run = connection.model<RunDoc>('RetentionRun', runSchema);
  }

  async init(): Promise<void> {
    await this.Run.init();
  }

  /** Claims interval `slot` at `at`; false when another instance claimed it first. */
  async claim(slot: number, at: Date): Promise<boolean> {
    try {
      await this.Run.create({ _id: `deliveries@${slot}`, at });
      return true;
    } catch (error) {
      if (isDuplicateKeyError(error)) return false;
      throw error;
    }
  }

  /** Drops the claim on interval `slot`. */
  async forget(slot: number): Promise<void> {
    await this.Run.deleteOne({ _id: `deliveries@${slot}` }).exec();
  }
}
