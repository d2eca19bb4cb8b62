import { createHash } from 'node:crypto';
import { UnprocessableError } from '@postbus/errors';

/**
 * The cursor of every internal list (the gateway hands it to clients as it is): base64url of the
 * JSON `[position, filters hash]`. The position is where the next page starts, in whatever terms
 * the list has (a sequence number, one per merged list, …); the hash names the filters that chose
 * the list, since a position means nothing in another list. A JSON array rather than an object:
 * cursors travel in query strings limited to 200 characters.
 */
export type CursorFilters = Record<string, string | number | boolean | null | undefined>;

/** A position a cursor may hold: JSON. */
export type CursorPosition = number | string | { [key: string]: CursorPosition } | CursorPosition[];

// 48 bits: enough to tell one filter set from another, short enough for the query string.
const filtersHash = (filters: CursorFilters): string => {
  const set = Object.entries(filters)
    .filter(([, value]) => value !== undefined && value !== null && value !== '')
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return createHash('sha256').update(JSON.stringify(set)).digest('base64url').slice(0, 8);
};

export const invalidCursor = (): UnprocessableError =>
  new UnprocessableError(
    'invalid-cursor',
    'The cursor is not one this API gave out for these filters; use next_cursor of a previous page with the same filters.',
  );

export const encodeCursor = (position: CursorPosition, filters: CursorFilters = {}): string =>
  Buffer.from(JSON.stringify([position, filtersHash(filters)])).toString('base64url');

/**
 * The position of a cursor given out by `encodeCursor` with the same filters; anything else (not
 * ours, of other filters, a position `isPosition` refuses) is a 422 `invalid-cursor`: the query was
 * well-formed, the cursor just does not belong to it.
 */
export function decodeCursor<P extends CursorPosition>(
  cursor: string,
  filters: CursorFilters,
  isPosition: (value: unknown) => value is P,
): P {
  let decoded: unknown;
  try {
    decoded = JSON.parse(Buffer.from(cursor, 'base64url').toString());
  } catch {
    throw invalidCursor();
  }
  if (!Array.isArray(decoded) || decoded.length !== 2 || decoded[1] !== filtersHash(filters) || !isPosition(decoded[0]))
    throw invalidCursor();
  return decoded[0];
}

/** A position in a sequence list (libs/db SequenceLists): the next page's entries lie below it. */
export const isSequence = (value: unknown): value is number => Number.isSafeInteger(value) && (value as number) >= 1;

/** Positions in several sequence lists at once, by list key (a page merged from them). */
export const isSequenceMap = (value: unknown): value is Record<string, number> =>
  typeof value === 'object' &&
  value !== null &&
  !Array.isArray(value) &&
  Object.entries(value).every(([key, seq]) => key !== '' && isSequence(seq));
