import { AsyncLocalStorage } from 'node:async_hooks';
import mongoose, { Types, type Schema } from 'mongoose';

/**
 * Whether queries made while answering a request are checked: `strict` refuses (throws) a query
 * on a growing collection that the embedded store would answer by reading the whole collection;
 * `off` checks nothing (production on MongoDB, where indexes serve the same queries).
 */
export type QueryAuditMode = 'off' | 'strict';

/** A query that would read a whole growing collection, made on a request path. */
export class UnboundedQueryError extends Error {
  constructor(
    readonly collection: string,
    readonly operation: string,
    readonly fields: string[],
  ) {
    super(
      `${operation} on the growing collection "${collection}" filters by ${fields.length ? fields.join(', ') : 'nothing'}: only an exact _id is served without a scan`,
    );
    this.name = 'UnboundedQueryError';
  }
}

interface AuditScope {
  mode: QueryAuditMode;
}

const scope = new AsyncLocalStorage<AuditScope>();

/** Runs `work` (the handling of one request) with its queries on growing collections checked. */
export function onRequestPath<T>(mode: QueryAuditMode, work: () => T): T {
  return mode === 'off' ? work() : scope.run({ mode }, work);
}

/** Runs `work` unchecked even inside a request: background work a request only starts (an erasure, a purge). */
export function offRequestPath<T>(work: () => T): T {
  return scope.exit(work);
}

const isPointId = (value: unknown): boolean => typeof value === 'string' || value instanceof Types.ObjectId;

/** True for a filter the embedded store serves from its `_id` index: `{_id: <string or ObjectId>}` and nothing else. */
export const isPointFilter = (filter: Record<string, unknown> | undefined): boolean =>
  filter !== undefined && Object.keys(filter).length === 1 && isPointId(filter['_id']);

const FILTERED = [
  'find',
  'findOne',
  'countDocuments',
  'updateOne',
  'updateMany',
  'replaceOne',
  'deleteOne',
  'deleteMany',
  'findOneAndUpdate',
  'findOneAndDelete',
  'findOneAndReplace',
  'distinct',
] as const;

/** One operation mongoose sent: its collection, method and filter. */
export interface RecordedQuery {
  collection: string;
  method: string;
  filter: Record<string, unknown> | undefined;
}

/**
 * Records the filtered operations (and aggregations) every mongoose connection of this process
 * sends to some collections, through mongoose's debug hook: for tests that check a read or a purge
 * addresses documents by `_id` alone, and how many it takes.
 */
export function recordQueries(collections: string[]): { queries: RecordedQuery[]; stop(): void } {
  const queries: RecordedQuery[] = [];
  const filtered = new Set<string>([...FILTERED, 'aggregate']);
  mongoose.set('debug', (collection: string, method: string, filter: unknown) => {
    if (collections.includes(collection) && filtered.has(method))
      queries.push({ collection, method, filter: method === 'aggregate' ? { $aggregate: filter } : (filter as Record<string, unknown>) });
  });
  return { queries, stop: () => void mongoose.set('debug', false) };
}

/**
 * Marks a schema's collection as one that grows with traffic (messages, deliveries, users,
 * payments): on a request path checked by `onRequestPath`, a query on it must name one exact
 * `_id`, and aggregations are refused. Reads of small collections (projects, endpoints) are not
 * checked. Apply before the model is compiled.
 */
export function growing<S extends Schema>(schema: S): S {
  const collection = (): string => String(schema.get('collection') ?? 'unnamed');
  schema.pre(new RegExp(`^(${FILTERED.join('|')})$`), function check(this: { getFilter(): Record<string, unknown>; op?: string }) {
    const audit = scope.getStore();
    if (!audit) return;
    const filter = this.getFilter();
    if (!isPointFilter(filter)) throw new UnboundedQueryError(collection(), this.op ?? 'query', Object.keys(filter));
  });
  schema.pre('aggregate', function check() {
    if (scope.getStore()) throw new UnboundedQueryError(collection(), 'aggregate', []);
  });
  return schema;
}
