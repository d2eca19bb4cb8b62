import { randomUUID } from 'node:crypto';
import { Schema, type Connection } from 'mongoose';
import { MESSAGE_STATUSES, type MessageStatus } from '@postbus/contracts';
import { insertNew } from '@postbus/db';
import type { StatusCounter } from '../domain/ports/messages';

/**
 * One instance's counts for one project and one UTC month: `c.d<DD>.<status>`. Only the instance
 * that claimed a shard increments it, so no two instances ever update one document (FerretDB's
 * updates are not atomic across connections).
 */
interface ShardDoc {
  /** `<projectId>:<YYYY-MM>:<n>`, n = 1, 2, … claimed by unique insert (dense, so read by probing). */
  _id: string;
  owner: string;
  c: Record<string, Partial<Record<MessageStatus, number>>>;
}

const shardSchema = new Schema<ShardDoc>(
  { _id: String, owner: String, c: { type: Schema.Types.Mixed, default: {} } },
  { collection: 'message_rollups', versionKey: false, minimize: false },
);

export interface DayCounts {
  day: string;
  counts: Record<MessageStatus, number>;
}

const shardId = (projectId: string, month: string, n: number): string => `${projectId}:${month}:${n}`;
const PROBE_WIDTH = 4;

/**
 * Messages by status per project per UTC day (a message counts on the day it reached a status;
 * `queued` is the day it was accepted). Counted in memory and flushed about every second with
 * `$inc` by `_id` into this instance's shard of the project's month; a read sums the shards of the
 * months asked for: a few point reads per month, whatever the traffic. A process killed without
 * its stop loses the counts of its last second (they cannot be rebuilt: the messages may be gone).
 */
export class StatusRollups implements StatusCounter {
  private readonly Shard;
  /** `<projectId>\n<day>` → status → count, not yet flushed. */
  private pending = new Map<string, Map<MessageStatus, number>>();
  /** `<projectId>:<month>` → this instance's shard id. */
  private readonly shards = new Map<string, string>();
  private timer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> = Promise.resolve();

  constructor(
    connection: Connection,
    private readonly instanceId: string = randomUUID(),
    private readonly flushMs = 1_000,
  ) {
    this.Shard = connection.model<ShardDoc>('MessageRollupShard', shardSchema);
  }

  async init(): Promise<void> {
    await this.Shard.init();
  }

  start(): void {
    this.timer = setInterval(() => {
      this.flushing = this.flushing.then(() => this.flush()).catch(() => undefined);
    }, this.flushMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.flushing;
    await this.flush();
  }

  count(projectId: string, status: MessageStatus, at: Date): void {
    this.add(`${projectId}\n${at.toISOString().slice(0, 10)}`, status, 1);
  }

  private add(key: string, status: MessageStatus, n: number): void {
    const byStatus = this.pending.get(key) ?? new Map<MessageStatus, number>();
    byStatus.set(status, (byStatus.get(status) ?? 0) + n);
    this.pending.set(key, byStatus);
  }

  /** Writes the counts gathered so far; on failure the unwritten ones are kept for the next flush. */
  async flush(): Promise<void> {
    const batch = this.pending;
    this.pending = new Map();
    const unwritten = new Map<string, Record<string, number>>();
    try {
      for (const [key, counts] of batch) {
        const [projectId, day] = key.split('\n') as [string, string];
        const id = await this.shard(projectId, day.slice(0, 7));
        const inc = unwritten.get(id) ?? {};
        for (const [status, n] of counts) {
          const field = `c.d${day.slice(8, 10)}.${status}`;
          inc[field] = (inc[field] ?? 0) + n;
        }
        unwritten.set(id, inc);
      }
      for (const [id, inc] of unwritten) {
        await this.Shard.updateOne({ _id: id }, { $inc: inc }).exec();
        unwritten.delete(id);
      }
    } catch (error) {
      for (const [key, counts] of batch) {
        const [projectId, day] = key.split('\n') as [string, string];
        const id = this.shards.get(`${projectId}:${day.slice(0, 7)}`);
        if (id === undefined || unwritten.has(id)) for (const [status, n] of counts) this.add(key, status, n);
      }
      throw error;
    }
  }

  /** Every day from `from` to `to` (inclusive, `YYYY-MM-DD`), with the counts of every status (0 when none). */
  async days(projectId: string, from: string, to: string): Promise<DayCounts[]> {
    const days: DayCounts[] = [];
    for (let t = Date.parse(`${from}T00:00:00Z`); t <= Date.parse(`${to}T00:00:00Z`); t += 86_400_000) {
      days.push({
        day: new Date(t).toISOString().slice(0, 10),
        counts: Object.fromEntries(MESSAGE_STATUSES.map((s) => [s, 0])) as DayCounts['counts'],
      });
    }
    const months = [...new Set(days.map((d) => d.day.slice(0, 7)))];
    const shards = (await Promise.all(months.map((month) => this.shardsOf(projectId, month)))).flat();
    const byDay = new Map(days.map((d) => [d.day, d.counts]));
    for (const { month, doc } of shards) {
      for (const [dd, counts] of Object.entries(doc.c ?? {})) {
        const total = byDay.get(`${month}-${dd.slice(1)}`);
        if (!total) continue;
        for (const [status, n] of Object.entries(counts)) if (status in total) total[status as MessageStatus] += n ?? 0;
      }
    }
    return days;
  }

  /** The shards of one project-month, probed 1, 2, … until one is missing. */
  private async shardsOf(projectId: string, month: string): Promise<Array<{ month: string; doc: ShardDoc }>> {
    const found: Array<{ month: string; doc: ShardDoc }> = [];
    for (let n = 1; ; n += PROBE_WIDTH) {
      const docs = await Promise.all(
        Array.from({ length: PROBE_WIDTH }, (_, k) =>
          this.Shard.findById(shardId(projectId, month, n + k))
            .lean<ShardDoc>()
            .exec(),
        ),
      );
      for (const doc of docs) {
        if (!doc) return found;
        found.push({ month, doc });
      }
    }
  }

  /** This instance's shard of a project-month: the first free number, claimed by unique insert. */
  private async shard(projectId: string, month: string): Promise<string> {
    const key = `${projectId}:${month}`;
    const known = this.shards.get(key);
    if (known !== undefined) return known;
    for (let n = 1; ; n++) {
      const id = shardId(projectId, month, n);
      const doc = await this.Shard.findById(id, { owner: 1 }).lean<Pick<ShardDoc, 'owner'>>().exec();
      if (doc && doc.owner !== this.instanceId) continue;
      if (!doc && (await insertNew(this.Shard, [{ _id: id, owner: this.instanceId, c: {} }])).size > 0) continue;
      this.shards.set(key, id);
      return id;
    }
  }
}
