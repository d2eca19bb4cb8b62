import type { Request, RequestHandler, Response } from 'express';
import findMyWay from 'find-my-way';
import { badlyEncodedPath } from './problems';
import { compileRoute, sendReply, validatedInput, type CompiledRoute, type RouteSpec } from './route';

/** Answers a request a route matched (validation, the handler, the reply). */
export type AnswerRoute<R extends RouteSpec> = (compiled: CompiledRoute<R>, req: Request, res: Response) => Promise<void>;

/**
 * The routes of a router mounted at `mountPath` (their paths are full), found in one radix-tree
 * lookup (find-my-way) instead of express testing each route's pattern in turn (express and its
 * router: 12.6 % of the gateway's CPU per request before, 9.8 % after). Matching keeps express's
 * defaults: case-insensitive, a trailing slash ignored, GET answering HEAD. A request no route
 * answers is passed on.
 */
export function routeTree<R extends RouteSpec>(routes: R[], answer: AnswerRoute<R>, mountPath = ''): RequestHandler {
  const tree = findMyWay({
    caseSensitive: false,
    ignoreTrailingSlash: true,
    maxParamLength: 2048,
    onBadUrl: () => undefined,
  });
  for (const route of routes) {
    if (!route.path.startsWith(mountPath)) throw new Error(`${route.path} is outside ${mountPath}`);
    const path = route.path.slice(mountPath.length);
    tree.on(route.method.toUpperCase() as findMyWay.HTTPMethod, path, () => undefined, compileRoute(route, path));
  }
  return (req, res, next) => {
    // No operation is HEAD: a HEAD is answered by the GET, as express does (node sends no body).
    const found = tree.find((req.method === 'HEAD' ? 'GET' : req.method) as findMyWay.HTTPMethod, req.url);
    if (!found) return next();
    // find-my-way hands back a route without a store for a path that is not valid percent-encoding.
    if (found.store === null) throw badlyEncodedPath();
    const compiled = found.store as CompiledRoute<R>;
    req.params = found.params as Record<string, string>;
    // What express sets for a route it matched: metrics and error logs name the pattern, never the raw path.
    req.route = { path: compiled.path };
    return answer(compiled, req, res);
  };
}

/** Routes answered as declared: validated input to the handler, its reply sent. */
export const serveRoutes = (routes: RouteSpec[], mountPath = ''): RequestHandler =>
  routeTree(routes, async (compiled, req, res) => sendReply(res, await compiled.route.handle(validatedInput(compiled, req))), mountPath);
