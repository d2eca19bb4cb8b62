import parse, { type ParseTask } from '../src/parse/report-parser.worker';

/**
 * The report parser's worker for its unit tests: a mail that reads `RUNAWAY` never finishes (only
 * ending its thread stops it), one that reads `HOG` takes all the memory it can; any other is read.
 */
export default async function runawayParse(task: ParseTask) {
  const text = Buffer.from(task.raw.buffer, task.raw.byteOffset, task.raw.byteLength).toString('latin1');
  if (text !== 'RUNAWAY' && text !== 'HOG') return parse(task);
  const started = new Int32Array(task.state);
  Atomics.store(started, 0, Math.max(1, Date.now() - task.queuedAt + 1));
  const hoard: number[][] = [];
  for (;;) if (text === 'HOG') hoard.push(new Array<number>(1_000_000).fill(hoard.length));
}
