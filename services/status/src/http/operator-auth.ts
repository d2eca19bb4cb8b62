import { createHash, timingSafeEqual } from 'node:crypto';
import type { NextFunction, Request, Response } from 'express';
import { UnauthorizedError } from '@postbus/errors';

const digest = (value: string) => createHash('sha256').update(value).digest();

/**
 * Bearer STATUS_OPERATOR_TOKEN, compared in constant time; with no token configured every call is
 * refused. A refusal goes on (`next(error)`) as a 401 asking for a Bearer token.
 */
export function requireOperator(token: string | undefined) {
  const expected = token ? digest(token) : undefined;
  return (req: Request, _res: Response, next: NextFunction) => {
    const match = /^Bearer\s+(\S+)$/i.exec(req.get('authorization') ?? '');
    if (!expected || !match || !timingSafeEqual(digest(match[1]!), expected)) {
      const error = new UnauthorizedError(
        expected ? 'Send the operator token as a Bearer token.' : 'The operator API is disabled: set STATUS_OPERATOR_TOKEN.',
      );
      error.headers['WWW-Authenticate'] = 'Bearer realm="postbus-status"';
      return next(error);
    }
    next();
  };
}
