import { randomUUID } from 'node:crypto';
import type { RequestHandler } from 'express';

declare module 'express-serve-static-core' {
  interface Request {
    /** Set for every request; echoed as X-Request-Id, carried on the bus and named by the request's log lines. */
    requestId: string;
  }
}

const VALID = /^[\w.:-]{1,128}$/;

/** Gives each request an id: the caller's X-Request-Id when sane, else a new one. */
export const requestId: RequestHandler = (req, res, next) => {
  const given = req.get('x-request-id');
  req.requestId = given && VALID.test(given) ? given : `req_${randomUUID().replace(/-/g, '')}`;
  res.set('X-Request-Id', req.requestId);
  next();
};
