import mongoose, { type Connection } from 'mongoose';

export type { Connection } from 'mongoose';
export { GroupCommit } from './group-commit';
export { insertNew, isDuplicateKeyError } from './duplicate-key';
export { DueQueue, type DueItem } from './due-queue';

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

/**
 * Runs the work for one key at a time, in arrival order, within this process. FerretDB 1.24 (the
 * local MongoDB-wire server) loses one of two concurrent updates to the same document (seen: 93 of
 * 100 pairs), so writes to one document go through here; on MongoDB they are atomic anyway.
 */
export class KeyedSerializer {
  private readonly tails = new Map<string, Promise<unknown>>();

  run<T>(key: string, work: () => Promise<T>): Promise<T> {
    const previous = this.tails.get(key) ?? Promise.resolve();
    const result = previous.then(work, work);
    const tail = result.catch(() => undefined);
    this.tails.set(key, tail);
    void tail.then(() => {
      if (this.tails.get(key) === tail) this.tails.delete(key);
    });
    return result;
  }
}
