import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { SavedState } from './engine';

const ISO_INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

/** JSON with its instants back as Dates (days are plain YYYY-MM-DD strings and stay so). */
export const parseSaved = (text: string): SavedState =>
  JSON.parse(text, (_key, value: unknown) =>
    typeof value === 'string' && ISO_INSTANT.test(value) ? new Date(value) : value,
  ) as SavedState;

/**
 * The state on disk: rewritten whole, to a temporary file renamed over the old one, so a crash
 * mid-write leaves the previous snapshot, never half of one.
 */
export class SnapshotFile {
  constructor(readonly path: string) {}

  async write(state: SavedState): Promise<void> {
    await mkdir(dirname(this.path), { recursive: true });
    const temporary = `${this.path}.${process.pid}.tmp`;
    await writeFile(temporary, JSON.stringify(state), { mode: 0o600 });
    await rename(temporary, this.path);
  }

  /** The saved state, or undefined when there is none yet (a first start). A damaged file throws. */
  async read(): Promise<SavedState | undefined> {
    let text: string;
    try {
      text = await readFile(this.path, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw error;
    }
    return parseSaved(text);
  }
}
