import express, { type RequestHandler } from 'express';
import { UnsupportedMediaTypeError } from '@postbus/errors';

const hasBody = (req: Parameters<RequestHandler>[0]): boolean =>
  req.get('transfer-encoding') !== undefined || Number(req.get('content-length') ?? 0) > 0;

const JSON_TYPES = ['application/json', 'application/*+json'];

/** JSON bodies only (415 otherwise), up to the limit (413 beyond it, via the problem handler). */
export function jsonBody(limit: string): RequestHandler {
  const parse = express.json({ limit, strict: true, type: JSON_TYPES });
  return (req, res, next) => {
    if (hasBody(req) && !req.is(JSON_TYPES)) throw new UnsupportedMediaTypeError();
    parse(req, res, next);
  };
}
