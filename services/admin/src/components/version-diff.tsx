import { useQuery } from '@tanstack/react-query';
import { api } from '../api/client';
import { sideBySide, type DiffLine } from '../lib/side-by-side';
import { ErrorState, Loading } from './ui';

/** One part of a version to compare: its name (Subject, HTML, Text) and its text (empty when it has none). */
export interface DiffPart {
  label: string;
  text: string;
}

/** One side's cells of a row: its line number and its text, marked when the other side lacks the line. */
function Side({ line, side }: { line: DiffLine | null; side: 'older' | 'newer' }) {
  const tone = !line?.changed
    ? ''
    : side === 'older'
      ? 'bg-red-50 text-red-900 dark:bg-red-950 dark:text-red-100'
      : 'bg-emerald-50 text-emerald-900 dark:bg-emerald-950 dark:text-emerald-100';
  return (
    <>
      <td className="w-8 pr-1 text-right align-top text-slate-400 select-none">{line?.number}</td>
      <td className={`align-top break-all whitespace-pre-wrap ${tone}`}>
        {line?.changed && <span className="sr-only">{side === 'older' ? 'removed: ' : 'added: '}</span>}
        {line?.text}
      </td>
    </>
  );
}

/** One part of two versions, side by side: the older on the left, the newer on the right, changed lines marked. */
function PartDiff({
  label,
  older,
  newer,
  olderVersion,
  newerVersion,
}: {
  label: string;
  older: string;
  newer: string;
  olderVersion: number;
  newerVersion: number;
}) {
  const diff = sideBySide(older, newer);
  return (
    <section aria-label={`${label} of version ${olderVersion} and version ${newerVersion}`} className="space-y-1">
      <h4 className="text-sm font-medium">
        {label}
        {diff?.identical && <span className="font-normal text-slate-500 dark:text-slate-400"> · unchanged</span>}
      </h4>
      {!diff ? (
        <p className="text-xs text-slate-500 dark:text-slate-400">Too different to compare line by line.</p>
      ) : (
        !diff.identical && (
          <div className="max-h-64 overflow-auto rounded border border-slate-200 dark:border-slate-700">
            <table className="w-full table-fixed font-mono text-xs">
              <caption className="sr-only">{`${label}: version ${olderVersion} on the left, version ${newerVersion} on the right`}</caption>
              <colgroup>
                <col className="w-8" />
                <col />
                <col className="w-8" />
                <col />
              </colgroup>
              <thead className="bg-slate-50 text-slate-500 dark:bg-slate-800 dark:text-slate-400">
                <tr>
                  <th scope="col" colSpan={2} className="px-1 text-left font-medium">
                    v{olderVersion}
                  </th>
                  <th scope="col" colSpan={2} className="border-l border-slate-200 px-1 text-left font-medium dark:border-slate-700">
                    v{newerVersion}
                  </th>
                </tr>
              </thead>
              <tbody>
                {diff.rows.map((row, i) =>
                  row.kind === 'skipped' ? (
                    <tr key={i} className="bg-slate-50 text-slate-500 dark:bg-slate-800 dark:text-slate-400">
                      <td colSpan={4} className="px-2 italic">
                        {row.count === 1 ? '1 unchanged line' : `${row.count} unchanged lines`}
                      </td>
                    </tr>
                  ) : (
                    <tr key={i}>
                      <Side line={row.older} side="older" />
                      <Side line={row.newer} side="newer" />
                    </tr>
                  ),
                )}
              </tbody>
            </table>
          </div>
        )
      )}
    </section>
  );
}

/**
 * Two versions of a template or layout compared part by part (`partsOf` reads the parts of one
 * version; a note says what a version lacks, such as a language): the older on the left.
 */
export function VersionDiff<T>({
  path,
  queryKey,
  versions,
  partsOf,
  title,
}: {
  /** The API path of the template or layout, whose ?version= reads each version. */
  path: string;
  queryKey: (version: number) => readonly unknown[];
  versions: readonly [number, number];
  partsOf: (read: T) => { parts: DiffPart[]; note?: string };
  title: string;
}) {
  const [olderVersion, newerVersion] = [Math.min(...versions), Math.max(...versions)];
  const older = useQuery({ queryKey: queryKey(olderVersion), queryFn: () => api<T>(path, { query: { version: olderVersion } }) });
  const newer = useQuery({ queryKey: queryKey(newerVersion), queryFn: () => api<T>(path, { query: { version: newerVersion } }) });
  return (
    <section aria-label="Comparison" className="mt-3 space-y-3 border-t border-slate-200 pt-3 dark:border-slate-700">
      <h3 className="text-sm font-semibold">{title}</h3>
      {older.isError || newer.isError ? (
        <ErrorState error={older.error ?? newer.error} />
      ) : !older.data || !newer.data ? (
        <Loading what="both versions" />
      ) : (
        <Parts older={partsOf(older.data)} newer={partsOf(newer.data)} olderVersion={olderVersion} newerVersion={newerVersion} />
      )}
    </section>
  );
}

function Parts({
  older,
  newer,
  olderVersion,
  newerVersion,
}: {
  older: { parts: DiffPart[]; note?: string };
  newer: { parts: DiffPart[]; note?: string };
  olderVersion: number;
  newerVersion: number;
}) {
  return (
    <>
      {[older.note && `Version ${olderVersion}: ${older.note}`, newer.note && `Version ${newerVersion}: ${newer.note}`]
        .filter(Boolean)
        .map((note) => (
          <p key={note} className="text-xs text-slate-500 dark:text-slate-400">
            {note}
          </p>
        ))}
      {older.parts.map((part, i) => (
        <PartDiff
          key={part.label}
          label={part.label}
          older={part.text}
          newer={newer.parts[i]?.text ?? ''}
          olderVersion={olderVersion}
          newerVersion={newerVersion}
        />
      ))}
    </>
  );
}
