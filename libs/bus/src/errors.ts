/** The broker did not acknowledge a publish in time; the caller must not report success. */
export class BusUnavailableError extends Error {
  constructor(cause?: unknown) {
    super('the message bus did not acknowledge the write', { cause });
    this.name = 'BusUnavailableError';
  }
}

/** A message that no number of retries will make valid: it goes to the DLQ at once. */
export class PoisonMessageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PoisonMessageError';
  }
}

export { isTransientError } from '@postbus/errors';
