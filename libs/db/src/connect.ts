import mongoose, { type Connection } from 'mongoose';

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
