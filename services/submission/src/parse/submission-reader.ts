import { join } from 'node:path';
import type { Logger } from '@postbus/logger';
import { BudgetedPool, OutOfMemoryError, OverBudgetError } from '@postbus/smtp';
import type { ReadSubmission, SubmissionInput, SubmissionReader } from '../domain/ports';
import type { ReadInput } from './submission-reader.worker';

export interface SubmissionReaderOptions {
  /** Worker threads at most: one from the start, the others started when needed. */
  threads: number;
  /** How long one message's read may take, from its start on a thread (not its wait for one). */
  budgetMs: number;
  /** The heap of a worker thread (MB). */
  memoryMb?: number;
  logger: Logger;
  /** The worker module; by default submission-reader.worker beside this file (tests give one whose read never ends). */
  workerFile?: string;
}

/** A message is at most SUBMISSION_MAX_MESSAGE_BYTES (10 MiB): its parts, their base64 and its JSON take a few times that. */
export const READ_MEMORY_MB = 512;

/**
 * Reads submitted messages on worker threads (BudgetedPool), so that a hostile MIME structure an
 * authenticated tenant sends holds no event loop the SMTP servers share. Past its budget or its
 * heap, the read is abandoned (its thread ended) and the message refused with 554 5.6.0 naming
 * the limit: the same bytes would take as long again.
 */
export class WorkerSubmissionReader implements SubmissionReader {
  private readonly pool: BudgetedPool<ReadInput, ReadSubmission>;

  constructor(private readonly options: SubmissionReaderOptions) {
    const filename =
      options.workerFile ?? join(__dirname, __filename.endsWith('.ts') ? 'submission-reader.worker.ts' : 'submission-reader.worker.js');
    this.pool = new BudgetedPool({
      filename,
      threads: options.threads,
      budgetMs: options.budgetMs,
      memoryMb: options.memoryMb ?? READ_MEMORY_MB,
    });
    this.pool.onError((error) => options.logger.error('a submission reader thread stopped outside a read', { error: error.message }));
  }

  async read({ raw, envelope }: SubmissionInput): Promise<ReadSubmission> {
    try {
      return await this.pool.run({ raw, rcptTo: envelope.rcptTo });
    } catch (error) {
      if (error instanceof OverBudgetError || error instanceof OutOfMemoryError) {
        this.options.logger.warn('submitted message abandoned: its read passed its budget', { why: error.message, bytes: raw.length });
        return { refusal: { code: 554, message: `5.6.0 The message could not be read within Postbus's limits: ${error.message}` } };
      }
      throw new Error(`the submission reader's worker thread stopped: ${(error as Error).message}`, { cause: error });
    }
  }

  /** Stops the worker threads once their reads are done. */
  close(): Promise<void> {
    return this.pool.close();
  }
}
