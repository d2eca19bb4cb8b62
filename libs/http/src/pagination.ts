import { UnprocessableError } from '@postbus/errors';
import { decodeCursor, encodeCursor, type CursorFilters, type CursorPosition } from './cursor';

const MAX_SCANNED_PAGES = 20;

// The message log's own position token (services/mailer domain), older than the shared cursor
// format: its internal API turns it into an `encodeCursor` cursor before it leaves the service.
const LIST_CURSOR_PREFIX = 'm1.';

/** The message log's token for a sequence-list position (the next page's entries lie below `seq`). */
export const encodeListCursor = (seq: number): string => Buffer.from(`${LIST_CURSOR_PREFIX}${seq}`).toString('base64url');

export function decodeListCursor(cursor: string): number {
  const text = Buffer.from(cursor, 'base64url').toString();
  const seq = Number(text.slice(LIST_CURSOR_PREFIX.length));
  if (!text.startsWith(LIST_CURSOR_PREFIX) || !Number.isSafeInteger(seq) || seq < 1)
    // Well-formed (the schema checked its characters) but not one of ours: a 422, not a 400.
    throw new UnprocessableError('invalid-cursor', 'The cursor is not one this API gave out; use next_cursor of a previous page.');
  return seq;
}

export interface FilteredPageOptions<D, V, P extends CursorPosition> {
  limit: number;
  cursor: string | undefined;
  /** The filters that chose the list: a cursor of other filters is refused (see encodeCursor). */
  filters: CursorFilters;
  isPosition: (value: unknown) => value is P;
  /** Up to `limit` documents after `after` (from the start without it), newest first. */
  fetch: (limit: number, after: P | undefined) => Promise<D[]>;
  /** Where the list goes on after a document. */
  positionAfter: (doc: D) => P;
  /** The public views of a page of documents, in the same order. */
  view: (docs: D[]) => Promise<V[]>;
  /** A filter that can only be applied to views (a status derived on read). */
  keep?: (view: V) => boolean;
}

/**
 * One page of a newest-first list with a cursor. A filter on views is applied page by page,
 * reading further pages (at most 20) until this one is full.
 */
export async function filteredPage<D, V, P extends CursorPosition>(
  options: FilteredPageOptions<D, V, P>,
): Promise<{ data: V[]; next_cursor: string | null }> {
  const { limit, filters, fetch, positionAfter, view, keep = () => true } = options;
  let after = options.cursor ? decodeCursor(options.cursor, filters, options.isPosition) : undefined;
  const data: V[] = [];
  let next: string | null = null;
  for (let pages = 0; pages < MAX_SCANNED_PAGES && data.length < limit; pages++) {
    const docs = await fetch(limit, after);
    const views = await view(docs);
    for (const [i, v] of views.entries()) {
      if (!keep(v)) continue;
      data.push(v);
      if (data.length === limit) {
        next = encodeCursor(positionAfter(docs[i]!), filters);
        break;
      }
    }
    if (docs.length < limit) {
      next = null;
      break;
    }
    after = positionAfter(docs[docs.length - 1]!);
    if (data.length < limit) next = encodeCursor(after, filters);
  }
  return { data, next_cursor: next };
}
