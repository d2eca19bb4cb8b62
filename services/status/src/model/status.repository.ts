import mongoose, { Schema, type Connection, type Model } from 'mongoose';
import type { CheckResult, DailyRecord, Incident, Maintenance } from '../domain/model';
import type { PendingChanges, SavedState } from '../domain/saved-state';

/**
 * The status service's own database. Checks are appended (the hot path: one insertMany per flush);
 * incidents, maintenances and daily records are small collections replaced whole by id. Reads
 * happen once, at start.
 */
interface CheckDoc extends CheckResult {
  _id?: unknown;
}
interface DocumentOf<T> {
  _id: string;
  doc: T;
  updatedAt: Date;
}

const checkSchema = new Schema<CheckDoc>(
  {
    componentId: { type: String, required: true },
    at: { type: Date, required: true, index: true },
    status: { type: String, required: true },
    detail: { type: String, default: '' },
    latencyMs: { type: Number },
  },
  { versionKey: false, collection: 'checks' },
);

const wholeSchema = <T>(collection: string) =>
  new Schema<DocumentOf<T>>(
    { _id: { type: String, required: true }, doc: { type: Schema.Types.Mixed, required: true }, updatedAt: { type: Date, required: true } },
    { versionKey: false, collection },
  );

export class StatusRepository {
  private readonly checks: Model<CheckDoc>;
  private readonly incidents: Model<DocumentOf<Incident>>;
  private readonly maintenances: Model<DocumentOf<Maintenance>>;
  private readonly days: Model<DocumentOf<DailyRecord>>;

  constructor(db: Connection) {
    this.checks = db.model<CheckDoc>('Check', checkSchema);
    this.incidents = db.model<DocumentOf<Incident>>('Incident', wholeSchema<Incident>('incidents'));
    this.maintenances = db.model<DocumentOf<Maintenance>>('Maintenance', wholeSchema<Maintenance>('maintenances'));
    this.days = db.model<DocumentOf<DailyRecord>>('Day', wholeSchema<DailyRecord>('days'));
  }

  /** Writes what changed; throws (nothing lost: the caller puts it back) when the database refuses. */
  async write(changes: PendingChanges): Promise<void> {
    if (changes.checks.length > 0) await this.checks.insertMany(changes.checks, { ordered: false, lean: true });
    const replace = <T>(model: Model<DocumentOf<T>>, items: T[], id: (item: T) => string, updatedAt: (item: T) => Date) =>
      items.length === 0
        ? Promise.resolve()
        : model
            .bulkWrite(
              items.map((item) => ({
                replaceOne: {
                  filter: { _id: id(item) },
                  replacement: { _id: id(item), doc: item, updatedAt: updatedAt(item) },
                  upsert: true,
                },
              })) as Parameters<Model<DocumentOf<T>>['bulkWrite']>[0],
              { ordered: false },
            )
            .then(() => undefined);
    await replace(
      this.incidents,
      changes.incidents,
      (i) => i.id,
      (i) => i.updatedAt,
    );
    await replace(
      this.maintenances,
      changes.maintenances,
      (m) => m.id,
      (m) => m.updatedAt,
    );
    await replace(
      this.days,
      changes.days,
      (d) => `${d.day}|${d.componentId}`,
      () => new Date(),
    );
  }

  /** Incidents, maintenances and days as the database has them (to catch up after a start from the snapshot file). */
  async load(): Promise<Partial<SavedState>> {
    const [incidents, maintenances, days] = await Promise.all([
      this.incidents.find().lean(),
      this.maintenances.find().lean(),
      this.days.find().lean(),
    ]);
    // Mixed fields come back with their Dates as Dates from MongoDB, but revive strings defensively.
    const revive = <T>(doc: T): T =>
      JSON.parse(JSON.stringify(doc), (_k, v: unknown) =>
        typeof v === 'string' && /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/.test(v) ? new Date(v) : v,
      ) as T;
    return {
      incidents: incidents.map((d) => revive(d.doc)),
      maintenances: maintenances.map((d) => revive(d.doc)),
      days: days.map((d) => revive(d.doc)),
    };
  }

  /** Checks older than the history are deleted (once a day). */
  async pruneChecks(before: Date): Promise<void> {
    await this.checks.deleteMany({ at: { $lt: before } });
  }
}

export const isConnected = (db: Connection): boolean => db.readyState === mongoose.ConnectionStates.connected;
