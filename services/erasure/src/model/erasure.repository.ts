import type { Connection } from 'mongoose';
import type { ErasureStatus } from '@postbus/contracts';
import { DueQueue, inParallel, insertNew, KnownUsers, knownUserKeys, SequenceLists, type DueItem, type ListEntry } from '@postbus/db';
import { boundaryOf, isPast, mergePage, type ListBoundary } from '../domain/erasure-list';
import type { ErasureStore } from '../domain/ports';
import type { ConfirmationDoc, ErasureDoc, OpenRequestDoc } from '../domain/records';
import { erasureModels, type ErasureModels } from './erasure.schema';

/** Every way a person is named in a project, as open-request keys (the same as the known users'). */
export const keysOf = knownUserKeys;

export interface ErasureFilter {
  projectIds: string[];
  status?: ErasureStatus;
}

/** Where a page of the merged lists of several projects stopped: the last erasure it listed (see domain/erasure-list.ts). */
export type ListPosition = ListBoundary;

/** One erasure of a merged page, with the position after it. */
export interface ListedErasure {
  at: Date;
  erasure: ErasureDoc | null;
  after: ListPosition;
}

/** A project's erasures, in the order they were recorded. */
const projectList = (projectId: string): string => `erasures:${projectId}`;

/**
 * Every read and write of the erasure service's own collections, each a point operation by `_id`
 * or an insert: a project's erasures through its list (SequenceLists), confirmations by
 * `<erasure id>:<service>`, open requests by the person's keys. No index but `_id` is needed on
 * MongoDB either.
 */
export class ErasureRepository implements ErasureStore {
  private readonly models: ErasureModels;
  /** Erasures waiting for their time, then for their confirmations (see DueQueue: claims are safe with several instances). */
  readonly due: DueQueue<Record<string, never>>;
  /** The users the users service announced: an erase names a user by email or by user_id, and is about both. */
  readonly users: KnownUsers;

  private readonly lists: SequenceLists;

  /** `participants`: the services that confirm (their confirmations are read by `_id`). */
  constructor(
    connection: Connection,
    private readonly participants: string[],
  ) {
    this.models = erasureModels(connection);
    this.lists = new SequenceLists(connection, 'erasure_lists');
    this.due = new DueQueue(connection, 'due_erasures');
    this.users = new KnownUsers(connection);
  }

  /** Every way a person is named in a project, as open-request keys (see keysOf). */
  personKeys(projectId: string, who: { email: string | null; userId: string | null }): string[] {
    return keysOf(projectId, who);
  }

  async init(): Promise<void> {
    await Promise.all([...Object.values(this.models).map((m) => m.init()), this.lists.init(), this.due.init(), this.users.init()]);
  }

  /** The open request of a person named by any of these keys. */
  async openRequest(keys: string[]): Promise<OpenRequestDoc | null> {
    const found = await Promise.all(keys.map((_id) => this.models.OpenRequest.findById(_id).lean<OpenRequestDoc>().exec()));
    return found.find((r) => r !== null) ?? null;
  }

  /**
   * Claims one key of a person for an erasure by unique insert; returns the erasure that holds it
   * (this one, or one that claimed it first).
   */
  async claimKey(key: string, erasureId: string, eraseAt: Date): Promise<string> {
    const taken = await insertNew(this.models.OpenRequest, [{ _id: key, erasureId, eraseAt }]);
    if (taken.size === 0) return erasureId;
    const holder = await this.models.OpenRequest.findById(key).lean<OpenRequestDoc>().exec();
    return holder?.erasureId ?? erasureId;
  }

  /** Records a request, its open keys and its due entry; every step is idempotent (a redelivered command repeats them). */
  async open(erasure: ErasureDoc, keys: string[]): Promise<void> {
    await insertNew(
      this.models.OpenRequest,
      keys.map((key) => ({ _id: key, erasureId: erasure._id, eraseAt: erasure.eraseAt })),
    );
    await insertNew(this.models.Erasure, [erasure]);
    await this.lists.appendOnce([
      {
        key: `erasure:${erasure._id}`,
        items: [{ list: projectList(erasure.projectId), at: erasure.createdAt, value: erasure._id }],
        known: 'maybe-seen',
      },
    ]);
    await this.due.scheduleMany([{ id: erasure._id, dueAt: erasure.eraseAt, payload: {} }]);
  }

  async byId(id: string): Promise<ErasureDoc | null> {
    return this.models.Erasure.findById(id).lean<ErasureDoc>().exec();
  }

  /** The erasure, also when the id is that of a duplicate request that joined it. */
  async byIdOrAlias(id: string): Promise<ErasureDoc | null> {
    const erasure = await this.byId(id);
    if (erasure) return erasure;
    const alias = await this.models.Alias.findById(id).lean<{ erasureId: string }>().exec();
    return alias ? this.byId(alias.erasureId) : null;
  }

  /** Records that a duplicate request's id stands for an open erasure; idempotent. */
  async alias(id: string, erasureId: string): Promise<void> {
    await insertNew(this.models.Alias, [{ _id: id, erasureId }]);
  }

  /**
   * Newest first over the projects' lists, `limit` at most, continuing after `from` (the last
   * erasure of the previous page): in each project, the `limit` first erasures past it (its list
   * read from the last one recorded at or before that time, a bisection of point reads), merged;
   * then one point read per erasure listed.
   */
  async page(projectIds: string[], limit: number, from?: ListPosition): Promise<ListedErasure[]> {
    const perProject = await inParallel(projectIds, (projectId) => this.firstPast(projectList(projectId), limit, from));
    const merged = mergePage(perProject, limit, from);
    return inParallel(merged, async (entry) => ({ at: entry.at, erasure: await this.byId(entry.value), after: boundaryOf(entry) }));
  }

  /** A project list's first `limit` entries past the boundary (all of them past none). */
  private async firstPast(list: string, limit: number, boundary?: ListBoundary): Promise<ListEntry[]> {
    const past: ListEntry[] = [];
    // Entries recorded in the boundary's millisecond may be on either side of it: read on past them.
    let options: { beforeSeq?: number; to?: Date } = boundary ? { to: new Date(boundary[0]) } : {};
    for (;;) {
      const { entries, next } = await this.lists.page(list, { limit: limit - past.length, ...options });
      past.push(...entries.filter((entry) => isPast(entry, boundary)));
      if (past.length >= limit || next === null) return past;
      options = { beforeSeq: next };
    }
  }

  claimDue(limit: number, leaseMs: number): Promise<Array<DueItem<Record<string, never>>>> {
    return this.due.claimDue(limit, leaseMs);
  }

  async markExecuting(id: string, at: Date): Promise<void> {
    const erasure = await this.byId(id);
    if (erasure?.status === 'queued')
      await this.models.Erasure.updateOne({ _id: id }, { $set: { status: 'executing', executedAt: at } }).exec();
  }

  /** Stores a confirmation (a repeat adds nothing) and returns all of the erasure's. */
  async confirm(confirmation: ConfirmationDoc): Promise<ConfirmationDoc[]> {
    await insertNew(this.models.Confirmation, [confirmation]);
    return this.confirmations([confirmation.erasureId]).then((all) => all.get(confirmation.erasureId) ?? []);
  }

  /** The participants' confirmations of each erasure: one point read per erasure and participant. */
  async confirmations(erasureIds: string[]): Promise<Map<string, ConfirmationDoc[]>> {
    const ids = erasureIds.flatMap((erasureId) => this.participants.map((service) => `${erasureId}:${service}`));
    const docs = await inParallel(ids, (_id) => this.models.Confirmation.findById(_id).lean<ConfirmationDoc>().exec());
    const byErasure = new Map<string, ConfirmationDoc[]>(erasureIds.map((id) => [id, []]));
    for (const d of docs) if (d) byErasure.get(d.erasureId)?.push(d);
    return byErasure;
  }

  /**
   * The erasure is complete: it is `completed` from now on, its open keys and the known user go,
   * and the sweep is due at `sweepAt`; the identifiers stay until the sweep. Idempotent.
   */
  async complete(erasure: ErasureDoc, completedAt: Date, sweepAt: Date): Promise<void> {
    await this.models.Erasure.updateOne(
      { _id: erasure._id },
      { $set: { status: 'completed', completedAt, executedAt: erasure.executedAt ?? completedAt } },
    ).exec();
    // The keys it was opened under (the same names it records), each if it is still this erasure's.
    for (const _id of keysOf(erasure.projectId, erasure)) {
      const open = await this.models.OpenRequest.findById(_id).lean<OpenRequestDoc>().exec();
      if (open?.erasureId === erasure._id) await this.models.OpenRequest.deleteOne({ _id }).exec();
    }
    // The known user, by each name that still names this person (another user may have it by now).
    for (const name of [{ email: erasure.email }, { userId: erasure.userId }]) {
      const known = name.email || name.userId ? await this.users.find(erasure.projectId, name) : null;
      if (known && (erasure.subjectId === null || known.id === erasure.subjectId)) await this.users.forget(erasure.projectId, [name], null);
    }
    await this.due.schedule(erasure._id, sweepAt, {});
  }

  /** After the sweep the record keeps ids, times and the email's keyed hash: nothing that names the person. */
  async forgetSubject(erasure: ErasureDoc): Promise<void> {
    await this.models.Erasure.updateOne({ _id: erasure._id }, { $set: { subjectId: null, email: null, userId: null } }).exec();
  }
}
