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

const TRANSIENT_NAMES =
  /^(MongoNetworkError|MongoNetworkTimeoutError|MongoServerSelectionError|MongoNotConnectedError|MongoTopologyClosedError|KafkaJS\w*ConnectionError|KafkaJSNumberOfRetriesExceeded|BusUnavailableError)$/;

/**
 * True for failures of infrastructure (database or broker unreachable) rather than of the message:
 * those are retried without bound instead of sending a good message to the DLQ.
 */
export const isTransientError = (error: unknown): boolean =>
  error instanceof Error && (TRANSIENT_NAMES.test(error.name) || (error.cause !== undefined && isTransientError(error.cause)));
