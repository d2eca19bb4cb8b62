import { PAGE_LIMIT } from '@postbus/contracts/values';
import { UnprocessableError } from '@postbus/errors';

/** A document listed newest first: ordered by creation time, then id. */
export interface Positioned {
  _id: string;
  createdAt: Date;
}

export interface Position {
  createdAt: Date;
  id: string;
}

const MAX_SCANNED_PAGES = 20;

export const encodeCursor = (doc: Positioned): string => Buffer.from(`${doc.createdAt.toISOString()}|${doc._id}`).toString('base64url');

export function decodeCursor(cursor: string): Position {
  const [at, id] = Buffer.from(cursor, 'base64url').toString().split('|');
  const createdAt = new Date(at ?? '');
  if (!id || Number.isNaN(createdAt.getTime()))
    // Well-formed (the schema checked its characters) but not one of ours: a 422, not a 400.
    throw new UnprocessableError('invalid-cursor', 'The cursor is not one this API gave out; use next_cursor of a previous page.');
  return { createdAt, id };
}

// A position in a sequence list (libs/db SequenceLists): the message log's and the suppression
// list's cursors. The prefix is the message log's first, kept so that cursors given out still read.
const LIST_CURSOR_PREFIX = 'm1.';

/** The cursor of a page read on from a sequence-list position (the next page's entries lie below `seq`). */
export const encodeListCursor = (seq: number): string => Buffer.from(`${LIST_CURSOR_PREFIX}${seq}`).toString('base64url');

export function decodeListCursor(cursor: string): number {
  const text = Buffer.from(cursor, 'base64url').toString();
  const seq = Number(text.slice(LIST_CURSOR_PREFIX.length));
  if (!text.startsWith(LIST_CURSOR_PREFIX) || !Number.isSafeInteger(seq) || seq < 1)
    // Well-formed (the schema checked its characters) but not one of ours: a 422, not a 400.
    throw new UnprocessableError('invalid-cursor', 'The cursor is not one this API gave out; use next_cursor of a previous page.');
  return seq;
}

/** A query string parameter, or undefined when absent or empty. */
export const queryText = (value: unknown): string | undefined => (typeof value === 'string' && value !== '' ? value : undefined);

/** The page size asked for, 1 to PAGE_LIMIT.max, PAGE_LIMIT.default by default. */
export const queryLimit = (value: unknown): number =>
  Math.min(PAGE_LIMIT.max, Math.max(1, Number(queryText(value) ?? PAGE_LIMIT.default) || PAGE_LIMIT.default));

export interface FilteredPageOptions<D extends Positioned, V> {
  limit: number;
  cursor: string | undefined;
  /** Up to `limit` documents strictly older than `after`, newest first. */
  fetch: (limit: number, after: Position | undefined) => Promise<D[]>;
  /** The public views of a page of documents, in the same order. */
  view: (docs: D[]) => Promise<V[]>;
  /** A filter that can only be applied to views (a status derived on read). */
  keep?: (view: V) => boolean;
}

/**
 * One page of a newest-first list with a cursor. A filter on views is applied page by page,
 * reading further pages (at most 20) until this one is full.
 */
export async function filteredPage<D extends Positioned, V>(
  options: FilteredPageOptions<D, V>,
): Promise<{ data: V[]; next_cursor: string | null }> {
  const { limit, fetch, view, keep = () => true } = options;
  let after = options.cursor ? decodeCursor(options.cursor) : undefined;
  const data: V[] = [];
  let next: string | null = null;
  for (let pages = 0; pages < MAX_SCANNED_PAGES && data.length < limit; pages++) {
    const docs = await fetch(limit, after);
    const views = await view(docs);
    for (const [i, v] of views.entries()) {
      if (!keep(v)) continue;
      data.push(v);
      if (data.length === limit) {
        next = encodeCursor(docs[i]!);
        break;
      }
    }
    if (docs.length < limit) {
      next = null;
      break;
    }
    const last = docs[docs.length - 1]!;
    after = { createdAt: last.createdAt, id: last._id };
    if (data.length < limit) next = encodeCursor(last);
  }
  return { data, next_cursor: next };
}
