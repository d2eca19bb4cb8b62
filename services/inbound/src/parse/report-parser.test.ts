import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { readInboundReport } from '../domain/inbound-report';
import { ReportParser } from './report-parser';

const fixture = (name: string) => readFileSync(join(__dirname, '../../fixtures', name));
/** A worker whose parse of `RUNAWAY` never ends and of `HOG` takes all the memory it can. */
const runaway = join(__dirname, '../../test/runaway-parse.worker.ts');
const bounce = fixture('postfix/failed-550-user-unknown.eml');

describe('reading received mail on a worker thread, within a budget', () => {
  let parser: ReportParser | undefined;
  afterEach(async () => {
    await parser?.close();
    parser = undefined;
  });

  it('a mail is read as on the caller’s thread', async () => {
    parser = new ReportParser({ threads: 1, budgetMs: 2_000 });
    for (const name of [
      'postfix/failed-550-user-unknown.eml',
      'providers/yahoo-notice-554-no-account.eml',
      'complaints/arf-abuse-rfc822-headers.eml',
      'auto-replies/out-of-office.eml',
      'other/human-reply.eml',
    ])
      expect(await parser.read(fixture(name))).toEqual(await readInboundReport(fixture(name)));
    expect(parser.stats).toEqual({ read: 5, overBudget: 0, outOfMemory: 0 });
  });

  it('a parse over its budget is abandoned: the caller is told at once the mail is unreadable, and the next mail is read on a new thread', async () => {
    parser = new ReportParser({ threads: 1, budgetMs: 300, workerFile: runaway });
    await parser.read(bounce); // the thread has started
    const started = performance.now();
    const report = await parser.read(Buffer.from('RUNAWAY'));
    const ms = performance.now() - started;
    expect(report).toEqual({ kind: 'unclassified', reason: 'unreadable: its parse took more than 300 ms', original: {} });
    expect(ms).toBeGreaterThanOrEqual(295);
    expect(ms).toBeLessThan(1_500);
    expect(await parser.read(bounce)).toMatchObject({ kind: 'delivery_status', format: 'rfc3464' });
    expect(parser.stats).toEqual({ read: 2, overBudget: 1, outOfMemory: 0 });
  });

  it('the event loop keeps turning while a parse runs away', async () => {
    parser = new ReportParser({ threads: 1, budgetMs: 600, workerFile: runaway });
    await parser.read(bounce);
    let ticks = 0;
    let longestGap = 0;
    let last = performance.now();
    const timer = setInterval(() => {
      const now = performance.now();
      longestGap = Math.max(longestGap, now - last);
      last = now;
      ticks++;
    }, 10);
    await parser.read(Buffer.from('RUNAWAY'));
    clearInterval(timer);
    expect(ticks).toBeGreaterThanOrEqual(20); // 60 if the machine is idle
    expect(longestGap).toBeLessThan(250);
  });

  it('a mail waiting for the thread a runaway parse holds is not charged for that wait', async () => {
    parser = new ReportParser({ threads: 1, budgetMs: 400, workerFile: runaway });
    await parser.read(bounce);
    const [abandoned, read] = await Promise.all([parser.read(Buffer.from('RUNAWAY')), parser.read(bounce)]);
    expect(abandoned).toMatchObject({ kind: 'unclassified', reason: 'unreadable: its parse took more than 400 ms' });
    expect(read).toMatchObject({ kind: 'delivery_status' });
  });

  it('a parse that needs more memory than its thread has is abandoned', async () => {
    parser = new ReportParser({ threads: 1, budgetMs: 10_000, memoryMb: 32, workerFile: runaway });
    await parser.read(bounce);
    expect(await parser.read(Buffer.from('HOG'))).toEqual({
      kind: 'unclassified',
      reason: 'unreadable: its parse needed more than 32 MB',
      original: {},
    });
    expect(await parser.read(bounce)).toMatchObject({ kind: 'delivery_status' });
    expect(parser.stats.outOfMemory).toBe(1);
  });
});
