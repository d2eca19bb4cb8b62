import express, { type Request, type RequestHandler } from 'express';
import { ATTACHMENT_LIMITS, SEND_BODY_LIMIT_BYTES } from '@postbus/contracts';
import {
  MalformedRequestError,
  PayloadTooLargeError,
  TooManyRequestsError,
  UnsupportedMediaTypeError,
  type FieldError,
} from '@postbus/errors';
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

/** A route whose body may carry attachments: a send, or a batch of sends (one limit for all of its messages). */
export interface SendRoute {
  /** The request's path, relative to where the router is mounted. */
  path: RegExp;
  kind: 'send' | 'batch';
  /** The messages the parsed body asks to send (none for a body that is not one: its route says so). */
  messagesOf: (body: unknown) => number;
}

/** The /v1 send routes (relative to /v1). */
export const V1_SEND_ROUTES: SendRoute[] = [
  { path: /^\/projects\/[^/]+\/emails\/(?:[^/]+\/)?send\/?$/i, kind: 'send', messagesOf: () => 1 },
  {
    path: /^\/projects\/[^/]+\/emails\/batch\/?$/i,
    kind: 'batch',
    messagesOf: (body) => {
      const messages = (body as { messages?: unknown } | undefined)?.messages;
      return Array.isArray(messages) ? messages.length : 0;
    },
  },
];

const MB = 1024 * 1024;

const sendRouteOf = (routes: SendRoute[], req: Request): SendRoute | undefined =>
  req.method === 'POST' ? routes.find((route) => route.path.test(req.path)) : undefined;

/** The messages a parsed request asks to send, by the send routes it is counted against. */
export const messageCounter =
  (routes: SendRoute[]) =>
  (req: Request): number =>
    sendRouteOf(routes, req)?.messagesOf(req.body) ?? 0;

/** The messages a parsed /v1 request asks to send: one for a send, one per item for a batch. */
export const messagesOf = messageCounter(V1_SEND_ROUTES);

/**
 * Request body bytes one client may have in flight in this gateway at once: a body counts its
 * Content-Length (or, sent without one, the send limit) from before it is read until its answer is
 * sent. Past the budget the answer is 429 with Retry-After, before a byte is read, so one client's
 * large sends queue on its own side and never fill this process's memory or hold its event loop
 * for everyone. One request alone always passes: its own limit is the body limit's business.
 */
export function bodyBudget(bytesPerClient: number): RequestHandler {
  if (bytesPerClient <= 0) return (_req, _res, next) => next();
  const inFlight = new Map<string, number>();
  return (req, res, next) => {
    const clientId = req.client?.clientId;
    if (!clientId || !hasBody(req)) return next();
    const declared = Number(req.get('content-length'));
    const bytes = Number.isSafeInteger(declared) && declared > 0 ? declared : SEND_BODY_LIMIT_BYTES;
    const used = inFlight.get(clientId) ?? 0;
    if (used > 0 && used + bytes > bytesPerClient) {
      // Node discards the unread body once the answer is sent, without parsing or holding it.
      throw new TooManyRequestsError(
        `This client has ${used} bytes of requests in flight in this gateway, and may have ${bytesPerClient}; retry after 1 s.`,
        1,
        { 'RateLimit-Policy': `"bytes-in-flight";q=${bytesPerClient}` },
      );
    }
    inFlight.set(clientId, used + bytes);
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      const left = (inFlight.get(clientId) ?? bytes) - bytes;
      if (left > 0) inFlight.set(clientId, left);
      else inFlight.delete(clientId);
    };
    res.once('finish', release);
    res.once('close', release);
    next();
  };
}

/**
 * JSON bodies of `limit` for every route but the send and batch routes (`routes`), which take
 * SEND_BODY_LIMIT_BYTES (the base64 of 10 MB of attachments and the rest). A batch's whole body
 * is held to that bound too (its messages' attachments share it), so a gateway never holds more
 * than that of one request.
 */
export function jsonBodies(limit: string, routes: SendRoute[] = V1_SEND_ROUTES): RequestHandler {
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
  const parsers = { send, batch };
  return (req, res, next) => {
    const route = sendRouteOf(routes, req);
    return (route ? parsers[route.kind] : usual)(req, res, next);
  };
}
