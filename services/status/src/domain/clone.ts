/**
 * A deep copy of plain data (objects, arrays, Dates). Not structuredClone: that makes its Dates in
 * Node's own realm, which fail `instanceof Date` inside jest's sandbox and any other vm context.
 */
export function clone<T>(value: T): T {
  if (value instanceof Date) return new Date(value.getTime()) as T;
  if (Array.isArray(value)) return value.map((item: unknown) => clone(item)) as T;
  if (value !== null && typeof value === 'object') {
    const copy: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) copy[key] = clone(item);
    return copy as T;
  }
  return value;
}
