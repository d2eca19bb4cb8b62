import type { Model } from 'mongoose';

/** True for a duplicate-key (E11000) error from a unique index. */
export const isDuplicateKeyError = (error: unknown): boolean =>
  typeof error === 'object' && error !== null && (error as { code?: unknown }).code === 11000;

interface WriteError {
  index?: number;
  code?: number;
  err?: { index?: number; code?: number };
}

/**
 * Inserts documents in one unordered insertMany; returns the positions of those that existed
 * already (a duplicate key: a redelivered message, a repeated id). Any other error is thrown.
 */
export async function insertNew<T>(model: Model<T>, docs: T[]): Promise<Set<number>> {
  const existing = new Set<number>();
  if (docs.length === 0) return existing;
  try {
    await model.insertMany(docs, { ordered: false, lean: true });
  } catch (error) {
    const failures = (error as { writeErrors?: WriteError[] }).writeErrors;
    if (!failures) {
      if (!isDuplicateKeyError(error)) throw error;
      docs.forEach((_, i) => existing.add(i));
    } else {
      for (const f of failures) {
        if ((f.code ?? f.err?.code) !== 11000) throw error;
        existing.add(f.index ?? f.err?.index ?? -1);
      }
    }
  }
  return existing;
}
