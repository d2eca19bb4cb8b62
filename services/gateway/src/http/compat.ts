import express, { type ErrorRequestHandler, type RequestHandler, type Router } from 'express';
import { AppError, NotFoundError } from '@postbus/errors';
import { requestError } from '@postbus/http';
import type { Logger } from '@postbus/logger';
import { messageCounter, type SendRoute } from './body';
import { methodNotAllowed } from './method-not-allowed';
import { apiRouter, type RouteDeps, type RouteSpec } from './route';

/**
 * Another product's HTTP API, spoken at the gateway's root so that its official SDKs work by
 * changing their host: an adapter over the same accept path, message reads and errors as /v1.
 */
export interface CompatibleApi {
  /** 'postmark' | 'resend': its OpenAPI document is served at /v1/openapi/<name>.json. */
  name: string;
  /** The document's title. */
  title: string;
  /**
   * Its routes, declared with defineRoute (paths at the root, e.g. '/email'), each with
   * `tenant: { credentials: true }` (plus `param` where the path has one): they act on the project
   * the credentials are bound to.
   */
  routes: RouteSpec[];
  /** The request header that carries the key besides `Authorization: Bearer` (Postmark's X-Postmark-Server-Token). */
  tokenHeader?: string;
  /** Which routes send how many messages: for the send body limit and the per-client message rate limit. */
  sends: SendRoute[];
  /**
   * Any error of a request on this API's paths, as this API answers it. It is an AppError of
   * @postbus/errors (ValidationError with its fields, UnauthorizedError, ForbiddenError,
   * NotFoundError, ConflictError, UnprocessableError, TooManyRequestsError, PayloadTooLargeError,
   * UnsupportedMediaTypeError, ServiceUnavailableError…: body-parser's errors and unreachable
   * backing services are already turned into those), or anything else: a 500, logged here.
   */
  answerError: (error: unknown) => { status: number; body: unknown; headers?: Record<string, string> };
}

/** The gateway's guards, each made for one API (its auth reads the API's token header; its limits count its send routes). */
export interface CompatibleApiGuards {
  authenticate: (tokenHeader: string | undefined) => RequestHandler;
  /** The per-client request rate limit and the bytes-in-flight budget, as on /v1. */
  limits: RequestHandler[];
  jsonBodies: (sends: SendRoute[]) => RequestHandler;
  messageRateLimit: (messagesOf: (req: express.Request) => number) => RequestHandler;
  /** Request metrics, the query audit: what /v1 records of every request. */
  observe: RequestHandler[];
  routeDeps: RouteDeps;
  logger: Logger;
}

/** The static start of a route's path (before its first parameter), without a trailing slash. */
const staticPrefix = (path: string): string => path.split('/:')[0]!.replace(/\/+$/, '');

/**
 * The API's router: requests on its paths (and under them: an unknown one is its 404) pass the
 * same guards as /v1, in the same order, then its routes; every error is answered in its shape.
 * Any other request passes by untouched.
 */
export function compatibleApiRouter(api: CompatibleApi, guards: CompatibleApiGuards): Router {
  const prefixes = [...new Set(api.routes.map((route) => staticPrefix(route.path)))];
  const ours = (path: string): boolean => prefixes.some((prefix) => path === prefix || path.startsWith(`${prefix}/`));
  const router = express.Router();
  router.use((req, _res, next) => next(ours(req.path) ? undefined : 'router'));
  router.use(
    ...guards.observe,
    guards.authenticate(api.tokenHeader),
    ...guards.limits,
    guards.jsonBodies(api.sends),
    guards.messageRateLimit(messageCounter(api.sends)),
    apiRouter(api.routes, guards.routeDeps),
    methodNotAllowed(api.routes, ''),
    (_req, _res, next) => next(new NotFoundError('There is no such endpoint.')),
  );
  const answerErrors: ErrorRequestHandler = (error: unknown, req, res, next) => {
    if (res.headersSent) return next(error);
    const known = requestError(error);
    if (!(known instanceof AppError))
      guards.logger.error('request failed', { error, requestId: req.requestId, method: req.method, api: api.name, path: req.path });
    const { status, body, headers } = api.answerError(known);
    res
      .status(status)
      .set({ ...(known instanceof AppError ? known.headers : {}), ...headers })
      .json(body);
  };
  router.use(answerErrors);
  return router;
}
