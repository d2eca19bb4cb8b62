import { diffLines } from 'diff';

/** One line of one side: its number in that version, its text, and whether the other side lacks it. */
export interface DiffLine {
  number: number;
  text: string;
  changed: boolean;
}

/**
 * A row of a side-by-side diff: a line of each version (null where that side has none), or a run
 * of unchanged lines left out.
 */
export type DiffRow = { kind: 'lines'; older: DiffLine | null; newer: DiffLine | null } | { kind: 'skipped'; count: number };

/** Unchanged lines kept around each change; longer unchanged runs between them are folded. */
export const DIFF_CONTEXT_LINES = 3;

/**
 * How many edits jsdiff may search before giving up: two long, wholly different bodies would
 * otherwise keep the browser busy for seconds.
 */
const MAX_EDIT_LENGTH = 5_000;

const linesOf = (value: string): string[] => {
  const lines = value.split('\n');
  if (lines.at(-1) === '') lines.pop();
  return lines;
};

/**
 * Two versions of a text side by side, line against line (jsdiff's line diff): removed lines on the
 * left face the lines added in their place on the right. `identical` when nothing changed; null
 * when the two are too different to compare line by line.
 */
export function sideBySide(older: string, newer: string): { identical: boolean; rows: DiffRow[] } | null {
  const changes = diffLines(older, newer, { maxEditLength: MAX_EDIT_LENGTH });
  if (!changes) return null;
  const rows: Array<Extract<DiffRow, { kind: 'lines' }>> = [];
  let olderNumber = 1;
  let newerNumber = 1;
  for (let i = 0; i < changes.length; i++) {
    const change = changes[i]!;
    if (!change.added && !change.removed) {
      for (const text of linesOf(change.value))
        rows.push({
          kind: 'lines',
          older: { number: olderNumber++, text, changed: false },
          newer: { number: newerNumber++, text, changed: false },
        });
      continue;
    }
    // jsdiff reports a replacement as the removal followed by the addition.
    const removed = change.removed ? linesOf(change.value) : [];
    const next = changes[i + 1];
    const added = change.added ? linesOf(change.value) : next?.added ? (i++, linesOf(next.value)) : [];
    for (let k = 0; k < Math.max(removed.length, added.length); k++)
      rows.push({
        kind: 'lines',
        older: k < removed.length ? { number: olderNumber++, text: removed[k]!, changed: true } : null,
        newer: k < added.length ? { number: newerNumber++, text: added[k]!, changed: true } : null,
      });
  }
  const isChanged = (row: (typeof rows)[number]) => Boolean(row.older?.changed || row.newer?.changed);
  if (!rows.some(isChanged)) return { identical: true, rows: [] };
  return { identical: false, rows: foldUnchanged(rows, isChanged) };
}

/** Leaves out the unchanged lines further than DIFF_CONTEXT_LINES from any change, each run as one row that counts them. */
function foldUnchanged<R extends Extract<DiffRow, { kind: 'lines' }>>(rows: R[], isChanged: (row: R) => boolean): DiffRow[] {
  const near = rows.map(() => false);
  rows.forEach((row, i) => {
    if (!isChanged(row)) return;
    for (let k = Math.max(0, i - DIFF_CONTEXT_LINES); k <= Math.min(rows.length - 1, i + DIFF_CONTEXT_LINES); k++) near[k] = true;
  });
  const folded: DiffRow[] = [];
  let skipped = 0;
  rows.forEach((row, i) => {
    if (near[i]) {
      if (skipped) folded.push({ kind: 'skipped', count: skipped });
      skipped = 0;
      folded.push(row);
    } else skipped++;
  });
  if (skipped) folded.push({ kind: 'skipped', count: skipped });
  return folded;
}
