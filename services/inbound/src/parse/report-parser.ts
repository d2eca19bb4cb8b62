import { join } from 'node:path';
import type { Logger } from '@postbus/logger';
import { BudgetedPool, OutOfMemoryError, OverBudgetError } from '@postbus/smtp';
import type { InboundReport } from '../domain/inbound-report';

export interface ReportParserOptions {
  /** Worker threads at most: one from the start, the others started when needed and stopped after a minute idle. */
  threads: number;
  /** How long one mail's parse may take, from its start on a thread (not its wait for one), before it is abandoned. */
  budgetMs: number;
  /** The old-generation heap of a worker thread (MB); a parse that needs more ends its thread and is abandoned. */
  memoryMb?: number;
  logger?: Logger;
  /** The worker module; by default report-parser.worker beside this file (tests give one whose parse never ends). */
  workerFile?: string;
}

/** Mail is kept to 256 KiB: its parse needs a few MB; this is room for the worst of it, and a bound. */
export const PARSE_MEMORY_MB = 256;

/** What a mail that could not be read in its budget is recorded as: a report that says nothing, dropped. */
const unreadable = (why: string): InboundReport => ({ kind: 'unclassified', reason: `unreadable: ${why}`, original: {} });

/**
 * Reads received mail on worker threads (piscina, as the template engine renders), so that no
 * mail holds the event loop the MX's SMTP listener and the bus consumer's heartbeats share. A parse
 * has `budgetMs` from its start on a thread: past it, or past `memoryMb` of heap, the thread is
 * ended (the pool starts another) and the mail is answered as unreadable, which the consumer
 * records and drops like any report that says nothing: a mail can neither hold the loop nor be
 * retried forever. The reader's expressions are linear, so only a mail far beyond what the MX
 * keeps, or a machine starved of CPU, comes near the budget.
 */
export class ReportParser {
  /** Mails read, and abandoned over their time or memory. */
  readonly stats = { read: 0, overBudget: 0, outOfMemory: 0 };
  private readonly pool: BudgetedPool<Uint8Array, InboundReport>;
  private readonly logger: Logger | undefined;

  constructor({ threads, budgetMs, memoryMb = PARSE_MEMORY_MB, logger, workerFile }: ReportParserOptions) {
    this.logger = logger;
    // From TypeScript (jest), the workers load the source as jest does; built, the compiled worker.
    const filename = workerFile ?? join(__dirname, __filename.endsWith('.ts') ? 'report-parser.worker.ts' : 'report-parser.worker.js');
    this.pool = new BudgetedPool({ filename, threads, budgetMs, memoryMb });
    this.pool.onError((error) => logger?.error('a report parser thread stopped outside a parse', { error: error.message }));
  }

  /**
   * What a mail says (readInboundReport's answer), read on a worker thread; `unclassified`
   * (unreadable) when its parse passes the budget or the memory limit. Throws when the thread
   * stopped for another reason (it could not start): the consumer then retries the mail.
   */
  readonly read = async (raw: Buffer): Promise<InboundReport> => {
    try {
      const report = await this.pool.run(raw);
      this.stats.read++;
      return report;
    } catch (error) {
      if (error instanceof OverBudgetError) {
        this.stats.overBudget++;
        this.logger?.warn('inbound mail abandoned: its parse took longer than its budget', { budgetMs: error.budgetMs, bytes: raw.length });
        return unreadable(`its parse took more than ${error.budgetMs} ms`);
      }
      if (error instanceof OutOfMemoryError) {
        this.stats.outOfMemory++;
        this.logger?.warn('inbound mail abandoned: its parse needed more memory than its thread has', {
          memoryMb: error.memoryMb,
          bytes: raw.length,
        });
        return unreadable(`its parse needed more than ${error.memoryMb} MB`);
      }
      throw new Error(`the report parser's worker thread stopped: ${(error as Error).message}`, { cause: error });
    }
  };

  /** Stops the worker threads once their parses are done. */
  async close(): Promise<void> {
    await this.pool.close();
  }
}
