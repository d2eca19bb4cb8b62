import type { Teardown } from '@postbus/http';
import type { Logger } from '@postbus/logger';
import type { SubmissionConfig } from '../config';
import { WorkerSubmissionReader } from '../parse/submission-reader';

/** The worker threads that read submitted messages; stopped once their reads are done. */
export function startReader(config: SubmissionConfig, logger: Logger, teardown: Teardown): WorkerSubmissionReader {
  const reader = new WorkerSubmissionReader({
    threads: config.SUBMISSION_PARSE_THREADS,
    budgetMs: config.SUBMISSION_PARSE_BUDGET_MS,
    logger,
  });
  teardown.add(() => reader.close());
  return reader;
}
