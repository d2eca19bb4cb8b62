import { randomUUID } from 'node:crypto';
import type { RequestHandler } from 'express';
import { withLogContext } from '@postbus/logger';

declare module 'express-serve-static-core' {
  interface Request {
    /** Set for every request; echoed as X-Request-Id and carried on the bus. */
    requestId: string;
  }
}

const VALID = /^[\w.:-]{1,128}$/;

/** Gives each request an id (the caller's X-Request-Id when sane) and runs the rest inside its log context. */
export const requestId: RequestHandler = (req, res, next) => {
  const given = req.get('x-request-id');
  req.requestId = given && VALID.test(given) ? given : `req_${randomUUID().replace(/-/g, '')}`;
  res.set('X-Request-Id', req.requestId);
  withLogContext({ requestId: req.requestId }, next);
};
