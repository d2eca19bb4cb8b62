import type { UseQueryResult } from '@tanstack/react-query';
import { useState, type ReactNode } from 'react';
import { Button, Empty, ErrorState, Loading } from './ui';

/**
 * Paging through a list by the API's cursors. The API pages forward only, so the cursors of the
 * pages before this one are kept for Previous; they are forgotten when the filters change
 * (`filterKey`: the filters as one string).
 */
export function useCursorPages(filterKey: string) {
  const [paging, setPaging] = useState<{ filterKey: string; cursors: string[] }>({ filterKey, cursors: [] });
  const cursors = paging.filterKey === filterKey ? paging.cursors : [];
  return { cursor: cursors.at(-1), cursors, goTo: (next: string[]) => setPaging({ filterKey, cursors: next }) };
}

/** Previous and Next under a page of a list; `nextCursor`: the page's, null on the last one. */
export function CursorPager({ pages, nextCursor }: { pages: ReturnType<typeof useCursorPages>; nextCursor: string | null | undefined }) {
  const { cursors, goTo } = pages;
  return (
    <nav aria-label="Pages" className="mt-3 flex items-center justify-between gap-2">
      <Button disabled={cursors.length === 0} onClick={() => goTo(cursors.slice(0, -1))}>
        Previous
      </Button>
      <span className="text-xs text-slate-500 dark:text-slate-400">Page {cursors.length + 1}</span>
      <Button disabled={!nextCursor} onClick={() => nextCursor && goTo([...cursors, nextCursor])}>
        Next
      </Button>
    </nav>
  );
}

/**
 * A cursor-paged list as its query has it: `what` loading, the error with Retry, or the page (`empty`
 * when it holds nothing, else `children` of its items) with Previous and Next under it.
 */
export function CursorPage<Page extends { data: unknown[]; next_cursor: string | null }>({
  query,
  what,
  pages,
  empty,
  children,
}: {
  query: UseQueryResult<Page>;
  what: string;
  pages: ReturnType<typeof useCursorPages>;
  empty: (page: Page) => ReactNode;
  children: (items: Page['data']) => ReactNode;
}) {
  if (query.isPending) return <Loading what={what} />;
  if (query.isError) return <ErrorState error={query.error} retry={() => void query.refetch()} />;
  const page = query.data;
  return (
    <>
      {page.data.length === 0 ? <Empty>{empty(page)}</Empty> : children(page.data)}
      <CursorPager pages={pages} nextCursor={page.next_cursor} />
    </>
  );
}
