import mongoose, { type Connection } from 'mongoose';

export type { Connection } from 'mongoose';
export { GroupCommit } from './group-commit';
export { inParallel } from './in-parallel';
export { insertEach, insertNew, isDuplicateKeyError } from './duplicate-key';
export { DueQueue, type DueItem } from './due-queue';
export { KeyedSerializer } from './keyed-serializer';
export { SequenceLists, type ListAppend, type ListEntry, type ListPage, type PageOptions } from './sequence-lists';
export { KnownUsers, knownUserKeys, type KnownUser, type UserName } from './known-users';

export interface DbOptions {
  url: string;
  /** The service's own database; no other service reads or writes it. */
  dbName: string;
  /** How long to keep trying to reach the server at start-up. */
  connectTimeoutMs?: number;
}

/**
 * Opens a dedicated mongoose connection (never the global one) to a service's own database and
 * waits until the server answers.
 */
export async function connectDb({ url, dbName, connectTimeoutMs = 30_000 }: DbOptions): Promise<Connection> {
  const connection = mongoose.createConnection(url, {
    dbName,
    serverSelectionTimeoutMS: connectTimeoutMs,
    autoIndex: true,
  });
  await connection.asPromise();
  return connection;
}

/** True when the database answers a ping. */
export async function pingDb(connection: Connection): Promise<boolean> {
  try {
    await connection.db?.admin().ping();
    return connection.readyState === mongoose.ConnectionStates.connected;
  } catch {
    return false;
  }
}
export {
  growing,
  isPointFilter,
  offRequestPath,
  onRequestPath,
  recordQueries,
  UnboundedQueryError,
  type QueryAuditMode,
  type RecordedQuery,
} from './query-audit';
