import express, { type RequestHandler } from 'express';
import { ATTACHMENT_LIMITS, SEND_BODY_LIMIT_BYTES } from '@postbus/contracts';
import { MalformedRequestError, PayloadTooLargeError, UnsupportedMediaTypeError, type FieldError } from '@postbus/errors';
import { invalidUtf8Offset } from '@postbus/http';

const hasBody = (req: Parameters<RequestHandler>[0]): boolean =>
  req.get('transfer-encoding') !== undefined || Number(req.get('content-length') ?? 0) > 0;

const JSON_TYPES = ['application/json', 'application/*+json'];

/**
 * JSON bodies only (415 otherwise), up to the limit (413 beyond it, via the problem handler), in
 * UTF-8 as RFC 8259 asks (another charset is a 415): bytes that are not UTF-8 are a 400, where
 * decoding would have replaced them with U+FFFD and stored the text altered.
 */
export function jsonBody(limit: string | number, tooLarge?: FieldError[]): RequestHandler {
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
  const shown = typeof limit === 'number' ? `${limit} bytes` : limit;
  return (req, res, next) => {
    if (hasBody(req) && !req.is(JSON_TYPES)) throw new UnsupportedMediaTypeError();
    parse(req, res, (error?: unknown) => {
      // Named here, where the limit of this route is known.
      if ((error as { type?: unknown } | undefined)?.type === 'entity.too.large') return next(new PayloadTooLargeError(shown, tooLarge));
      next(error);
    });
  };
}

/** The routes whose body may carry attachments (a send, a batch of sends): relative to /v1. */
const SEND_ROUTE = /^\/projects\/[^/]+\/emails\/[^/]+\/send\/?$/i;
const BATCH_ROUTE = /^\/projects\/[^/]+\/emails\/batch\/?$/i;

const MB = 1024 * 1024;

/**
 * JSON bodies of `limit` for every route but the send and batch routes, which take
 * SEND_BODY_LIMIT_BYTES (the base64 of 10 MB of attachments and the rest). A batch's whole body
 * is held to that bound too (its messages' attachments share it), so a gateway never holds more
 * than that of one request.
 */
export function jsonBodies(limit: string): RequestHandler {
  const usual = jsonBody(limit);
  // Only attachments make a send that large: the problem names them.
  const send = jsonBody(SEND_BODY_LIMIT_BYTES, [
    {
      pointer: '/attachments',
      message: `at most ${ATTACHMENT_LIMITS.totalBytes / MB} MB of attachments together, and the whole body at most ${SEND_BODY_LIMIT_BYTES} bytes`,
    },
  ]);
  const batch = jsonBody(SEND_BODY_LIMIT_BYTES, [
    { pointer: '/messages', message: `the messages and their attachments together at most ${SEND_BODY_LIMIT_BYTES} bytes` },
  ]);
  return (req, res, next) => {
    if (req.method !== 'POST') return usual(req, res, next);
    if (SEND_ROUTE.test(req.path)) return send(req, res, next);
    if (BATCH_ROUTE.test(req.path)) return batch(req, res, next);
    return usual(req, res, next);
  };
}
