import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { SavedState } from '../domain/saved-state';

const ISO_INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

/** JSON with its instants back as Dates (days are plain YYYY-MM-DD strings and stay so). */
export const parseSaved = (text: string): SavedState =>
  JSON.parse(text, (_key, value: unknown) =>
    typeof value === 'string' && ISO_INSTANT.test(value) ? new Date(value) : value,
  ) as SavedState;

/**
 * A value on disk as JSON: rewritten whole, to a temporary file renamed over the old one, so a
 * crash mid-write leaves the previous value, never half of one.
 */
export class JsonFile<T> {
  constructor(
    readonly path: string,
    private readonly parse: (text: string) => T = (text) => JSON.parse(text) as T,
  ) {}

  async write(value: T): Promise<void> {
    await mkdir(dirname(this.path), { recursive: true });
    const temporary = `${this.path}.${process.pid}.tmp`;
    await writeFile(temporary, JSON.stringify(value), { mode: 0o600 });
    await rename(temporary, this.path);
  }

  /** The saved value, or undefined when there is none yet (a first start). A damaged file throws. */
  async read(): Promise<T | undefined> {
    let text: string;
    try {
      text = await readFile(this.path, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw error;
    }
    return this.parse(text);
  }
}

/** The engine's state on disk, loaded at start so the page answers with the database down. */
export class SnapshotFile extends JsonFile<SavedState> {
  constructor(path: string) {
    super(path, parseSaved);
  }
}
