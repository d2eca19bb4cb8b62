import type { Model } from 'mongoose';

/** True for a duplicate-key (E11000) error from a unique index. */
export const isDuplicateKeyError = (error: unknown): boolean =>
  typeof error === 'object' && error !== null && (error as { code?: unknown }).code === 11000;

interface WriteError {
  index?: number;
  code?: number;
  err?: { index?: number; code?: number };
}

/** The positions a failed unordered insert found taken (a duplicate key); any other error is thrown. */
function takenPositions(error: unknown, count: number): Set<number> {
  const failures = (error as { writeErrors?: WriteError[] }).writeErrors;
  if (!failures) {
    if (!isDuplicateKeyError(error)) throw error;
    return new Set(Array.from({ length: count }, (_, i) => i)); // one error for the batch: none is known to be in
  }
  const taken = new Set<number>();
  for (const f of failures) {
    if ((f.code ?? f.err?.code) !== 11000) throw error;
    taken.add(f.index ?? f.err?.index ?? -1);
  }
  return taken;
}

/**
 * Inserts documents in one unordered insertMany; returns the positions of those that existed
 * already (a duplicate key: a redelivered message, a repeated id). Any other error is thrown.
 */
export async function insertNew<T>(model: Model<T>, docs: T[]): Promise<Set<number>> {
  if (docs.length === 0) return new Set();
  try {
    await model.insertMany(docs, { ordered: false, lean: true });
    return new Set();
  } catch (error) {
    return takenPositions(error, docs.length);
  }
}

/**
 * insertNew with the schema applied (defaults, casts, timestamps): each document as stored, or
 * null where one with its unique key existed already (or may have: see takenPositions).
 */
export async function insertEach<T>(model: Model<T>, docs: Array<Partial<T>>): Promise<Array<T | null>> {
  // Built here, not by insertMany, so that each keeps the timestamps the insert gives it.
  const built = docs.map((doc) => new model(doc));
  let taken = new Set<number>();
  try {
    if (built.length) await model.insertMany(built, { ordered: false });
  } catch (error) {
    taken = takenPositions(error, built.length);
  }
  return built.map((doc, i) => (taken.has(i) ? null : (doc.toObject() as T)));
}
