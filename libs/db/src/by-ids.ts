import type { Model } from 'mongoose';
import { inParallel } from './in-parallel';

/*
 * The embedded store serves `{_id: <string>}` from its index, but scans the whole collection for
 * `{_id: {$in: [...]}}`: many documents by `_id` are as many point reads, side by side.
 */

/** The documents with these ids that exist, as stored (lean), in no particular order. */
export async function findByIds<T>(model: Model<T>, ids: string[]): Promise<T[]> {
  const found = await inParallel([...new Set(ids)], (id) => model.findById(id).lean<T>().exec());
  return found.filter((doc): doc is NonNullable<typeof doc> => doc !== null);
}

/** Deletes the documents with these ids (each only if `also` matches it too); returns how many went. */
export async function deleteByIds<T>(model: Model<T>, ids: string[], also: Record<string, unknown> = {}): Promise<number> {
  const gone = await inParallel([...new Set(ids)], (id) => model.deleteOne({ _id: id, ...also }).exec());
  return gone.reduce((sum, result) => sum + result.deletedCount, 0);
}
