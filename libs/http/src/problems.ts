import type { ErrorRequestHandler, RequestHandler } from 'express';
import {
  AppError,
  MalformedRequestError,
  NotFoundError,
  PayloadTooLargeError,
  problemFor,
  isTransientError,
  ServiceUnavailableError,
  UnsupportedMediaTypeError,
} from '@postbus/errors';
import type { Logger } from '@postbus/logger';

/** body-parser's errors carry a `type`; they are the client's fault and say so. */
function fromBodyParser(error: unknown, limit: string): AppError | undefined {
  const type = (error as { type?: unknown } | null)?.type;
  if (type === 'entity.too.large') return new PayloadTooLargeError(limit);
  if (type === 'entity.parse.failed') return new MalformedRequestError('The body is not valid JSON.');
  if (type === 'encoding.unsupported' || type === 'charset.unsupported') return new UnsupportedMediaTypeError();
  if (type === 'request.aborted' || type === 'request.size.invalid' || type === 'stream.encoding.set')
    return new MalformedRequestError('The body could not be read.');
  return undefined;
}

/** A path that is not valid percent-encoding (express's routers throw a URIError for it): the client's fault. */
export const badlyEncodedPath = (): MalformedRequestError => new MalformedRequestError('The path is not valid percent-encoding.');

/**
 * The error a request failed with, as the client's fault where it is one: body-parser's errors and
 * a badly encoded path become the AppErrors they stand for; an unreachable database or broker a 503.
 */
export const requestError = (error: unknown, bodyLimit = '1mb'): unknown => {
  const known = fromBodyParser(error, bodyLimit) ?? (error instanceof URIError ? badlyEncodedPath() : error);
  return !(known instanceof AppError) && isTransientError(known)
    ? new ServiceUnavailableError('A backing service is unreachable; retry later.', 5)
    : known;
};

/** Unknown routes answer 404 as problem+json too. */
export const notFoundHandler: RequestHandler = (_req, _res, next) => next(new NotFoundError('There is no such endpoint.'));

/**
 * Turns every error into an RFC 9457 body: AppErrors as they are, anything else as an opaque 500
 * logged with its stack (the response never carries internals).
 */
export function problemHandler(logger: Logger, bodyLimit = '1mb'): ErrorRequestHandler {
  return (error: unknown, req, res, next) => {
    if (res.headersSent) return next(error);
    const { problem, headers } = problemFor(requestError(error, bodyLimit), req.requestId);
    if (problem.status >= 500)
      logger.error('request failed', {
        error,
        requestId: req.requestId,
        method: req.method,
        path: (req.route as { path?: string } | undefined)?.path ?? req.path,
      });
    res.status(problem.status).set(headers).type('application/problem+json').send(JSON.stringify(problem));
  };
}
