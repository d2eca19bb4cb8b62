import type { RequestHandler } from 'express';
import { onRequestPath, type QueryAuditMode } from '@postbus/db';

/** Answers each request with the queries it makes on growing collections checked (QUERY_AUDIT). */
export const auditQueries =
  (mode: QueryAuditMode): RequestHandler =>
  (_req, _res, next) =>
    onRequestPath(mode, () => next());
