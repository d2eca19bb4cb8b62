import { markStarted } from '@postbus/smtp';
import parse, { type ParseTask } from '../src/parse/report-parser.worker';

/**
 * The report parser's worker for its unit tests: a mail that reads `RUNAWAY` never finishes (only
 * ending its thread stops it), one that reads `HOG` takes all the memory it can; any other is read.
 */
export default async function runawayParse(task: ParseTask) {
  const text = Buffer.from(task.input.buffer, task.input.byteOffset, task.input.byteLength).toString('latin1');
  if (text !== 'RUNAWAY' && text !== 'HOG') return parse(task);
  markStarted(task);
  const hoard: number[][] = [];
  for (;;) if (text === 'HOG') hoard.push(new Array<number>(1_000_000).fill(hoard.length));
}
