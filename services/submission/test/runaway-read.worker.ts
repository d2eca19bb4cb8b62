import { markStarted } from '@postbus/smtp';
import read, { type ReadTask } from '../src/parse/submission-reader.worker';

/** The submission reader's worker for its tests: a message that reads `RUNAWAY` never finishes (only ending its thread stops it); any other is read. */
export default async function runawayRead(task: ReadTask) {
  const text = Buffer.from(task.input.raw.buffer, task.input.raw.byteOffset, task.input.raw.byteLength).toString('latin1');
  if (text !== 'RUNAWAY') return read(task);
  markStarted(task);
  for (;;);
}
