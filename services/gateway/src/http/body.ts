import express, { type RequestHandler } from 'express';
import { UnsupportedMediaTypeError } from '@postbus/errors';

const hasBody = (req: Parameters<RequestHandler>[0]): boolean =>
  req.get('transfer-encoding') !== undefined || Number(req.get('content-length') ?? 0) > 0;

/** JSON bodies only (415 otherwise), up to the limit (413 beyond it, via the problem handler). */
export function jsonBody(limit: string): RequestHandler[] {
  return [
    (req, _res, next) => {
      if (hasBody(req) && !req.is(['application/json', 'application/*+json'])) throw new UnsupportedMediaTypeError();
      next();
    },
    express.json({ limit, strict: true, type: ['application/json', 'application/*+json'] }),
  ];
}
