/**
 * The erasure list a client reads: the erasures of all its projects merged into one, newest
 * recorded first. Its cursor must fit the public API's (200 characters, libs/contracts PageParams)
 * whatever the number of projects, so a position is not per project: it is the last erasure a
 * page listed, by its place in the merged order (when it was recorded, then its id), and the next
 * page reads, in each project's list, the erasures that come after it.
 */

/** An erasure on a project's list: when it was recorded and its id. */
export interface ListedKey {
  at: Date;
  value: string;
}

/** The last erasure a page listed: `[recorded at (epoch ms), erasure id]`. A JSON array, for a short cursor. */
export type ListBoundary = [at: number, id: string];

/** Erasure ids are `era_<32 hex>` (chosen by the gateway); a boundary's id is bounded, so the cursor is too. */
export const MAX_BOUNDARY_ID_LENGTH = 64;

/** A boundary as a cursor holds it (anything else in a cursor is refused as none of ours). */
export const isListBoundary = (value: unknown): value is ListBoundary =>
  Array.isArray(value) &&
  value.length === 2 &&
  Number.isSafeInteger(value[0]) &&
  (value[0] as number) >= 0 &&
  typeof value[1] === 'string' &&
  value[1].length >= 1 &&
  value[1].length <= MAX_BOUNDARY_ID_LENGTH;

/** Ids compared by code unit: the same order wherever it is computed (unlike a locale's). */
const compareIds = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** The merged order: newest recorded first; of erasures recorded in the same millisecond, the greater id first. */
export const newestFirst = (a: ListedKey, b: ListedKey): number => b.at.getTime() - a.at.getTime() || compareIds(b.value, a.value);

/** The boundary a page that ends with this erasure leaves. */
export const boundaryOf = (entry: ListedKey): ListBoundary => [entry.at.getTime(), entry.value];

/** Whether an erasure comes after the boundary in the merged order (a later page's); every one does without a boundary. */
export const isPast = (entry: ListedKey, boundary: ListBoundary | undefined): boolean =>
  boundary === undefined || newestFirst({ at: new Date(boundary[0]), value: boundary[1] }, entry) < 0;

/**
 * One page of the merged list from each project's first erasures past the boundary (each project's
 * `limit` first are enough): those past it, newest first, `limit` at most.
 */
export function mergePage<E extends ListedKey>(perProject: E[][], limit: number, boundary?: ListBoundary): E[] {
  return perProject
    .flat()
    .filter((entry) => isPast(entry, boundary))
    .sort(newestFirst)
    .slice(0, limit);
}
