import { Schema, type Connection } from 'mongoose';
import { GroupCommit, insertNew, isDuplicateKeyError } from '@postbus/db';

interface SuppressionDoc {
  _id: string;
  projectId: string;
  email: string | null;
  userId?: string | null;
  reason: string;
  at: Date;
}

const suppressionSchema = new Schema<SuppressionDoc>(
  {
    _id: String,
    projectId: String,
    email: { type: String, default: null },
    userId: { type: String, default: undefined },
    reason: String,
    at: Date,
  },
  { collection: 'suppressions', versionKey: false },
);

/** The reason of a suppression while an erasure is pending; it holds whatever the email says (docs/architecture.md#erasure). */
export const ERASURE = 'erasure';

/** Who a message goes to: its address, and the client's user id when the trigger named one. */
export interface Recipient {
  projectId: string;
  email: string;
  userId?: string | null;
}

/** Who an erasure is about; either may be unknown. */
export interface ErasureTarget {
  projectId: string;
  email: string | null;
  userId: string | null;
}

// Erasure suppressions live under keys of their own: an address unsubscribed before (whose
// suppression keeps its first reason) still gets the erasure one, and the erasure removes both.
const keyOf = (projectId: string, email: string) => `${projectId}:${email}`;
const erasureEmailKey = (projectId: string, email: string) => `${projectId}:erase:email:${email}`;
const erasureUserKey = (projectId: string, userId: string) => `${projectId}:erase:uid:${userId}`;

/** The erasure suppressions of a person: one per identifier known. */
const erasureDocs = ({ projectId, email, userId }: ErasureTarget, at: Date): SuppressionDoc[] => [
  ...(email !== null ? [{ _id: erasureEmailKey(projectId, email), projectId, email, reason: ERASURE, at }] : []),
  ...(userId !== null ? [{ _id: erasureUserKey(projectId, userId), projectId, email: null, userId, reason: ERASURE, at }] : []),
];

/** Addresses and users of a project that get no more mail (unsubscribed, pending erasure; later bounces). */
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

  /** Suppresses a person whose erasure is scheduled, by address and by user id (a replay adds nothing). */
  async addErasure(target: ErasureTarget, at: Date): Promise<void> {
    await insertNew(this.Suppression, erasureDocs(target, at));
  }

  /** Removes the erasure suppressions of a person (undoing an `addErasure` that lost a race with the erasure). */
  async removeErasure(target: ErasureTarget): Promise<void> {
    const keys = erasureDocs(target, new Date(0)).map((d) => d._id);
    if (keys.length > 0) await this.Suppression.deleteMany({ _id: { $in: keys } }).exec();
  }

  /**
   * Removes the suppressions of these addresses and of this user id, whatever the reason: after an
   * erasure the address belongs to no one known, and a new trigger reaches whoever it is now.
   */
  async removeAll(projectId: string, emails: string[], userId: string | null, before: Date): Promise<number> {
    const keys = [
      ...emails.flatMap((e) => [keyOf(projectId, e), erasureEmailKey(projectId, e)]),
      ...(userId !== null ? [erasureUserKey(projectId, userId)] : []),
    ];
    if (keys.length === 0) return 0;
    // Only those from before the erasure ran: a later one is the choice of whoever has the address now.
    return (await this.Suppression.deleteMany({ _id: { $in: keys }, at: { $lte: before } }).exec()).deletedCount;
  }

  /** Why this recipient gets no mail, or undefined; asked together with concurrent callers in one read. */
  readonly reasonFor = (recipient: Recipient): Promise<string | undefined> => this.lookups.add(recipient);

  private readonly lookups = new GroupCommit<Recipient, string | undefined>((recipients) => this.reasons(recipients));

  /**
   * Why each recipient gets no mail (undefined when it gets mail), in order, in one `$in` read by
   * `_id`. A pending erasure of the address or of the user id wins over any other reason.
   */
  async reasons(recipients: Recipient[]): Promise<Array<string | undefined>> {
    if (recipients.length === 0) return [];
    const keysOf = ({ projectId, email, userId }: Recipient) => ({
      erasure: [erasureEmailKey(projectId, email), ...(userId ? [erasureUserKey(projectId, userId)] : [])],
      other: keyOf(projectId, email),
    });
    const keys = recipients.map(keysOf);
    const all = [...new Set(keys.flatMap((k) => [...k.erasure, k.other]))];
    const docs = await this.Suppression.find({ _id: { $in: all } })
      .lean<SuppressionDoc[]>()
      .exec();
    const reasons = new Map(docs.map((d) => [d._id, d.reason]));
    return keys.map((k) => (k.erasure.some((key) => reasons.has(key)) ? ERASURE : reasons.get(k.other)));
  }
}
