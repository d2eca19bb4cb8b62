import { decodeCursor, encodeCursor, type CursorFilters, type CursorPosition } from './cursor';

const MAX_SCANNED_PAGES = 20;

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
