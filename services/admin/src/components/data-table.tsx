import type { ReactNode } from 'react';

/** How a table sits on its screen: a screen's list of records, or a small table inside a card (an attempt log, a user's payments). */
type Density = 'regular' | 'compact';

const HEAD_CLASSES: Record<Density, string> = {
  regular: 'text-xs text-slate-500 uppercase dark:text-slate-400',
  compact: 'text-xs text-slate-500 dark:text-slate-400',
};
const HEADING_CLASSES: Record<Density, string> = { regular: 'py-2', compact: 'py-1 font-medium whitespace-nowrap' };
const BODY_CLASSES: Record<Density, string | undefined> = {
  regular: 'divide-y divide-slate-100 dark:divide-slate-800',
  compact: undefined, // its rows draw their own lines
};

/**
 * A table of records, scrolling sideways on a narrow screen: its caption for screen readers, a header
 * of `columns` and, where given, a last column (`lastColumn`, such as the row's actions) named for
 * screen readers only; `children` are its rows. `minWidth`: a Tailwind min-w-[…] class, below which
 * it scrolls. `density`: `compact` for a small table inside a card, its headings as written.
 */
export function DataTable({
  caption,
  minWidth,
  columns,
  lastColumn,
  density = 'regular',
  children,
}: {
  caption: string;
  minWidth?: string;
  columns: readonly string[];
  lastColumn?: string;
  density?: Density;
  children: ReactNode;
}) {
  const heading = HEADING_CLASSES[density];
  return (
    // relative: the containing block of the visually hidden last heading, which would otherwise widen the page on a phone.
    <div className="relative overflow-x-auto">
      <table className={['w-full', minWidth, 'text-left text-sm'].filter(Boolean).join(' ')}>
        <caption className="sr-only">{caption}</caption>
        <thead className={HEAD_CLASSES[density]}>
          <tr>
            {columns.map((column) => (
              <th key={column} scope="col" className={`${heading} pr-3`}>
                {column}
              </th>
            ))}
            {lastColumn !== undefined && (
              <th scope="col" className={heading}>
                <span className="sr-only">{lastColumn}</span>
              </th>
            )}
          </tr>
        </thead>
        <tbody className={BODY_CLASSES[density]}>{children}</tbody>
      </table>
    </div>
  );
}
