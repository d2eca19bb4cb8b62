import express, { type RequestHandler } from 'express';
import { MalformedRequestError, UnsupportedMediaTypeError } from '@postbus/errors';
import { invalidUtf8Offset } from '@postbus/http';

const hasBody = (req: Parameters<RequestHandler>[0]): boolean =>
  req.get('transfer-encoding') !== undefined || Number(req.get('content-length') ?? 0) > 0;

const JSON_TYPES = ['application/json', 'application/*+json'];

/**
 * JSON bodies only (415 otherwise), up to the limit (413 beyond it, via the problem handler), in
 * UTF-8 as RFC 8259 asks (another charset is a 415): bytes that are not UTF-8 are a 400, where
 * decoding would have replaced them with U+FFFD and stored the text altered.
 */
export function jsonBody(limit: string): RequestHandler {
  const parse = express.json({
    limit,
    strict: true,
    type: JSON_TYPES,
    verify: (_req, _res, bytes, encoding) => {
      if (encoding !== 'utf-8') throw new UnsupportedMediaTypeError();
      const offset = invalidUtf8Offset(bytes);
      if (offset !== -1) {
        const shown = [...bytes.subarray(offset, offset + 4)].map((b) => `0x${b.toString(16).toUpperCase().padStart(2, '0')}`);
        throw new MalformedRequestError(
          `The body is not valid UTF-8: the bytes at offset ${offset} (${shown.join(' ')}…) form no UTF-8 character.`,
        );
      }
    },
  });
  return (req, res, next) => {
    if (hasBody(req) && !req.is(JSON_TYPES)) throw new UnsupportedMediaTypeError();
    parse(req, res, next);
  };
}
