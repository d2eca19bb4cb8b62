import { Schema, type Connection } from 'mongoose';
import { GroupCommit, isDuplicateKeyError } from '@postbus/db';

interface SuppressionDoc {
  _id: string;
  projectId: string;
  email: string;
  reason: string;
  at: Date;
}

const suppressionSchema = new Schema<SuppressionDoc>(
  { _id: String, projectId: String, email: String, reason: String, at: Date },
  { collection: 'suppressions', versionKey: false },
);

const keyOf = (projectId: string, email: string) => `${projectId}:${email}`;

/** Addresses of a project that get no more mail (unsubscribed, and later bounces and erasures). */
export class Suppressions {
  private readonly Suppression;

  constructor(connection: Connection) {
    this.Suppression = connection.model<SuppressionDoc>('Suppression', suppressionSchema);
  }

  async init(): Promise<void> {
    await this.Suppression.init();
  }

  async add(projectId: string, email: string, reason: string, at: Date): Promise<void> {
    try {
      await this.Suppression.create({ _id: keyOf(projectId, email), projectId, email, reason, at });
    } catch (error) {
      if (!isDuplicateKeyError(error)) throw error; // suppressed already: the first reason stays
    }
  }

  /** Why this address is suppressed, or undefined; asked together with concurrent callers in one read. */
  readonly reasonFor = (projectId: string, email: string): Promise<string | undefined> => this.lookups.add({ projectId, email });

  private readonly lookups = new GroupCommit<{ projectId: string; email: string }, string | undefined>(async (addresses) => {
    const reasons = await this.reasons(addresses);
    return addresses.map((a) => reasons.get(keyOf(a.projectId, a.email)));
  });

  /** The reason of each suppressed address among those asked, by `projectId:email`. */
  async reasons(addresses: Array<{ projectId: string; email: string }>): Promise<Map<string, string>> {
    if (addresses.length === 0) return new Map();
    const keys = [...new Set(addresses.map((a) => keyOf(a.projectId, a.email)))];
    const docs = await this.Suppression.find({ _id: { $in: keys } })
      .lean<SuppressionDoc[]>()
      .exec();
    return new Map(docs.map((d) => [d._id, d.reason]));
  }

  static key = keyOf;
}
