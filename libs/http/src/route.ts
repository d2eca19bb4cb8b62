import type { Static, TSchema } from '@sinclair/typebox';
import type { Request, Response } from 'express';
import { NotFoundError, UnprocessableError, ValidationError, type FieldError } from '@postbus/errors';
import { compileBody, compileText, loneSurrogates, toFieldErrors, type Validator } from './validation';

/**
 * What a handler answers: the status, a JSON body (none for e.g. 204) or `bytes` sent as they are
 * (a file, its Content-Type among `headers`), and extra headers.
 */
export interface Reply {
  status: number;
  body?: unknown;
  bytes?: Uint8Array;
  headers?: Record<string, string>;
}

/** What a handler gets: the request's parts, already validated against the route's schemas. */
export interface RouteInput<B, P, Q> {
  body: B;
  params: P;
  query: Q;
  requestId: string;
  /** The request came over https (behind a proxy: as TRUST_PROXY lets X-Forwarded-Proto say). */
  secure: boolean;
}

type StaticOr<T, Fallback> = T extends TSchema ? Static<T> : Fallback;

/** The input of a route's handler: its schemas' types, plus what the server adds (`Context`, e.g. the authenticated client). */
export type HandlerInput<B, P, Q, Context extends object = object> = RouteInput<
  StaticOr<B, undefined>,
  StaticOr<P, Record<string, string>>,
  StaticOr<Q, Record<string, unknown>>
> &
  Context;

/** One HTTP operation: the single source of its validation, its handler and its documented answers. */
export interface RouteSpec<
  B extends TSchema | undefined = TSchema | undefined,
  P extends TSchema | undefined = TSchema | undefined,
  Q extends TSchema | undefined = TSchema | undefined,
  Context extends object = object,
> {
  method: 'get' | 'post' | 'put' | 'patch' | 'delete';
  /** Express path, e.g. /internal/projects/:projectId */
  path: string;
  body?: B;
  params?: P;
  query?: Q;
  /**
   * `schema`: the JSON answer's; `mediaType`: the answer is a file of that type (`*\/*` when it
   * varies), not JSON; `headers`: what the answer's own headers say, by name.
   */
  responses: Record<number, { description: string; schema?: TSchema; mediaType?: string; headers?: Record<string, string> }>;
  handle(input: HandlerInput<B, P, Q, Context>): Promise<Reply>;
}

/**
 * The `defineRoute` of a server whose handlers get `Context` besides the request (e.g. the
 * authenticated client) and whose routes carry `Extra` fields (e.g. the gateway's OpenAPI entries).
 * It returns each route as it was given: only its type changes, from the one its schemas fix to
 * the server's list type.
 */
export const routeDefiner =
  <Context extends object = object, Extra extends object = object>() =>
  <B extends TSchema | undefined = undefined, P extends TSchema | undefined = undefined, Q extends TSchema | undefined = undefined>(
    spec: RouteSpec<B, P, Q, Context> & Extra,
  ): RouteSpec<TSchema | undefined, TSchema | undefined, TSchema | undefined, Context> & Extra =>
    spec;

/** Declares a route with its handler typed by its schemas. */
export const defineRoute = routeDefiner();

/** A route and its compiled validators, ready to answer requests. */
export interface CompiledRoute<R extends RouteSpec = RouteSpec> {
  route: R;
  /** The path as express names routes (relative to the mount path): metrics and logs use it. */
  path: string;
  validateBody: Validator | undefined;
  validateParams: Validator | undefined;
  validateQuery: Validator | undefined;
}

export const compileRoute = <R extends RouteSpec>(route: R, path = route.path): CompiledRoute<R> => ({
  route,
  path,
  validateBody: route.body && compileBody(route.body),
  validateParams: route.params && compileText(route.params),
  validateQuery: route.query && compileText(route.query),
});

/** `alsoWrong`: problems found besides the schema's, reported with them. */
function check(validator: Validator | undefined, value: unknown, where: string, alsoWrong: FieldError[] = []): void {
  if ((!validator || validator(value)) && alsoWrong.length === 0) return;
  // An id that cannot exist names no resource: the same answer as an unknown one.
  if (where === 'path') throw new NotFoundError();
  const errors = [...alsoWrong, ...toFieldErrors(validator?.errors)];
  // A query can state no "one of these parameters" rule in OpenAPI: each parameter is valid alone,
  // so a query naming none of the alternatives (e.g. neither email nor user_id) is a 422, not a 400.
  const failures = validator?.errors ?? [];
  const onlyAlternativesMissing =
    failures.some((e) => e.keyword === 'anyOf' && e.instancePath === '') &&
    failures.every((e) => e.instancePath === '' && (e.keyword === 'anyOf' || e.schemaPath.includes('/anyOf/')));
  if (where === 'query' && onlyAlternativesMissing) {
    throw new UnprocessableError('query-names-nothing', `The query ${errors.map((e) => e.message).join('; ')}.`);
  }
  const detail =
    where === 'body' ? `The body has ${errors.length} invalid field${errors.length === 1 ? '' : 's'}.` : `The ${where} is invalid.`;
  throw new ValidationError(detail, where === 'body' ? errors : errors.map((e) => ({ ...e, message: `${where}: ${e.message}` })));
}

/**
 * The request's path parameters, query and body, validated by the route's schemas (with their
 * defaults applied and query text coerced): an impossible path parameter is a 404, a bad query or
 * body a 400 naming each field.
 */
export function validatedInput(
  { route, validateBody, validateParams, validateQuery }: CompiledRoute,
  req: Request,
): RouteInput<unknown, Record<string, string>, Record<string, unknown>> {
  const params = { ...req.params } as Record<string, string>;
  check(validateParams, params, 'path');
  const query = { ...(req.query as Record<string, unknown>) };
  check(validateQuery, query, 'query');
  let body: unknown = undefined;
  if (route.body) {
    body = req.body;
    // A body is an object, unless its route takes a list (Postmark's batch is a bare array).
    const shape = (route.body as { type?: unknown }).type === 'array' ? 'array' : 'object';
    if (body === undefined || body === null || typeof body !== 'object' || Array.isArray(body) !== (shape === 'array')) {
      throw new ValidationError(`The body must be a JSON ${shape}.`, [{ pointer: '', message: `must be ${shape}` }]);
    }
    check(validateBody, body, 'body', loneSurrogates(body));
  }
  return { body, params, query, requestId: req.requestId, secure: req.secure };
}

export function sendReply(res: Response, reply: Reply): void {
  res.status(reply.status);
  if (reply.headers) res.set(reply.headers);
  if (reply.bytes !== undefined) res.end(Buffer.from(reply.bytes.buffer, reply.bytes.byteOffset, reply.bytes.byteLength));
  else if (reply.body === undefined) res.end();
  else res.json(reply.body);
}
