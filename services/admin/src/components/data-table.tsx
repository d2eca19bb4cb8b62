import type { ReactNode } from 'react';

/**
 * A table of a screen's records, scrolling sideways on a narrow screen: its caption for screen readers,
 * a header of `columns` and a last column (`lastColumn`, such as the row's actions) named for screen
 * readers only; `children` are its rows. `minWidth`: a Tailwind min-w-[…] class, below which it scrolls.
 */
export function DataTable({
  caption,
  minWidth,
  columns,
  lastColumn,
  children,
}: {
  caption: string;
  minWidth: string;
  columns: readonly string[];
  lastColumn: string;
  children: ReactNode;
}) {
  return (
    // relative: the containing block of the visually hidden last heading, which would otherwise widen the page on a phone.
    <div className="relative overflow-x-auto">
      <table className={`w-full ${minWidth} text-left text-sm`}>
        <caption className="sr-only">{caption}</caption>
        <thead className="text-xs text-slate-500 uppercase dark:text-slate-400">
          <tr>
            {columns.map((column) => (
              <th key={column} scope="col" className="py-2 pr-3">
                {column}
              </th>
            ))}
            <th scope="col" className="py-2">
              <span className="sr-only">{lastColumn}</span>
            </th>
          </tr>
        </thead>
        <tbody className="divide-y divide-slate-100 dark:divide-slate-800">{children}</tbody>
      </table>
    </div>
  );
}
