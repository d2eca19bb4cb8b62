import { sideBySide, type DiffRow } from './side-by-side';

/** A row as the reader sees it: `left | right`, `-`/`+` marking a changed line, `…n` a folded run. */
const show = (row: DiffRow): string =>
  row.kind === 'skipped'
    ? `…${row.count}`
    : [row.older, row.newer]
        .map((line) => (line ? `${line.changed ? (line === row.older ? '-' : '+') : ''}${line.number} ${line.text}` : ''))
        .join(' | ');

describe('two versions side by side', () => {
  it('faces each removed line with the line added in its place, numbering each side on its own', () => {
    const diff = sideBySide('<h1>Hi</h1>\n<p>Old</p>\n<p>Bye</p>\n', '<h1>Hi</h1>\n<p>New</p>\n<p>More</p>\n<p>Bye</p>\n');
    expect(diff?.identical).toBe(false);
    expect(diff?.rows.map(show)).toEqual([
      '1 <h1>Hi</h1> | 1 <h1>Hi</h1>',
      '-2 <p>Old</p> | +2 <p>New</p>',
      ' | +3 <p>More</p>',
      '3 <p>Bye</p> | 4 <p>Bye</p>',
    ]);
  });

  it('shows a line only the older version has on the left alone, and one only the newer has on the right alone', () => {
    expect(sideBySide('a\nb\nc', 'a\nc')?.rows.map(show)).toEqual(['1 a | 1 a', '-2 b | ', '3 c | 2 c']);
    expect(sideBySide('', 'Hallo')?.rows.map(show)).toEqual([' | +1 Hallo']);
  });

  it('folds unchanged lines far from any change into one row that counts them', () => {
    const older = Array.from({ length: 20 }, (_, i) => `line ${i + 1}`).join('\n');
    const newer = older.replace('line 10', 'line ten');
    expect(sideBySide(older, newer)?.rows.map(show)).toEqual([
      '…6',
      '7 line 7 | 7 line 7',
      '8 line 8 | 8 line 8',
      '9 line 9 | 9 line 9',
      '-10 line 10 | +10 line ten',
      '11 line 11 | 11 line 11',
      '12 line 12 | 12 line 12',
      '13 line 13 | 13 line 13',
      '…7',
    ]);
  });

  it('says two equal texts are identical, with nothing to show', () => {
    expect(sideBySide('same\n', 'same\n')).toEqual({ identical: true, rows: [] });
  });
});
