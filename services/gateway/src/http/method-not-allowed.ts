import type { RequestHandler } from 'express';
import { match } from 'path-to-regexp';
import { AppError } from '@postbus/errors';
import type { RouteSpec } from './route';

class MethodNotAllowedError extends AppError {
  constructor(allow: string[]) {
    super(405, 'method-not-allowed', 'Method not allowed', `This path answers ${allow.join(', ')} only.`);
  }
}

/**
 * After the routes: a request for a known path with a method it does not have (OPTIONS and TRACE
 * included) is a 405 whose Allow lists exactly the path's documented methods. When several paths
 * match (`/users/by-email` and `/users/:userId`), the one with the fewest parameters is meant.
 */
export function methodNotAllowed(routes: RouteSpec[], mountPath: string): RequestHandler {
  const byPath = new Map<string, Set<string>>();
  for (const route of routes)
    (byPath.get(route.path) ?? byPath.set(route.path, new Set()).get(route.path)!).add(route.method.toUpperCase());
  const paths = [...byPath.entries()]
    .map(([path, methods]) => ({ matches: match(path.slice(mountPath.length)), params: (path.match(/:/g) ?? []).length, methods }))
    .sort((a, b) => a.params - b.params);
  return (req, res, next) => {
    const known = paths.find((p) => p.matches(req.path));
    if (!known) return next();
    const allow = [...known.methods];
    res.set('Allow', allow.join(', '));
    next(new MethodNotAllowedError(allow));
  };
}
