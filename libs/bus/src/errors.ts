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

/**
 * What a message needs has not arrived yet (a user announced on another topic): the consumer
 * treats it as transient and retries with backoff, and the handler gives up at the end of its own wait.
 */
export class NotYetKnownError extends Error {
  constructor(what: string) {
    super(`${what} is not known yet`, { cause: new BusUnavailableError() });
    this.name = 'NotYetKnownError';
  }
}

export { isTransientError } from '@postbus/errors';
