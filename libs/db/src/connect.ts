import mongoose, { type Connection } from 'mongoose';

type MongoClientOptions = ConstructorParameters<typeof mongoose.mongo.MongoClient>[1] & { dbName: string };

export interface DbOptions {
  url: string;
  /** The service's own database; no other service reads or writes it. */
  dbName: string;
  /** How long to keep trying to reach the server at start-up. */
  connectTimeoutMs?: number;
  /**
   * How long the database may go without answering a ping before the connection's client is
   * replaced by a new one (0: never). See renewWhenStuck.
   */
  renewAfterMs?: number;
  /** Told when the client was replaced, or a replacement failed (the database is still down). */
  onRenew?: (event: { unansweredMs: number; error?: unknown }) => void;
  /** Where renewals are logged, when onRenew is not given. */
  logger?: { warn(message: string, meta?: Record<string, unknown>): void };
}

const PING_EVERY_MS = 5_000;
const PING_TIMEOUT_MS = 5_000;

/** True when the database answers a ping. */
export async function pingDb(connection: Connection): Promise<boolean> {
  try {
    await connection.db?.admin().ping();
    return connection.readyState === mongoose.ConnectionStates.connected;
  } catch {
    return false;
  }
}

const within = <T>(work: Promise<T>, ms: number, fallback: T): Promise<T> => {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([work, new Promise<T>((resolve) => (timer = setTimeout(() => resolve(fallback), ms)))]).finally(() =>
    clearTimeout(timer),
  );
};

/**
 * Replaces the connection's client when the database has not answered for `afterMs`. After the
 * database's container restarted (a new address behind the same name), a client can stay stuck
 * on the server it knew: every operation fails server selection with the old connection's error
 * for minutes or for good, and mongoose may never mark the connection connected again, although
 * the database answers a new client at once. So a new client is connected beside it; only once it
 * has reached the database does it take the old one's place (mongoose keeps the models bound to
 * the connection), and the old one is closed: what was in flight on it fails as a lost connection
 * would, and is retried by its caller. While the database is really down, nothing is swapped.
 */
function renewWhenStuck(connection: Connection, url: string, options: MongoClientOptions, afterMs: number, onRenew: DbOptions['onRenew']) {
  let unansweredSince: number | undefined;
  let closed = false;
  let renewing = false;
  const check = async () => {
    if (renewing || closed) return;
    if (await within(pingDb(connection), Math.min(PING_TIMEOUT_MS, afterMs), false)) {
      unansweredSince = undefined;
      return;
    }
    unansweredSince ??= Date.now();
    const unansweredMs = Date.now() - unansweredSince;
    if (unansweredMs < afterMs) return;
    renewing = true;
    const client = new mongoose.mongo.MongoClient(url, options);
    try {
      await client.connect();
      await client.db(options.dbName).admin().ping();
      if (closed) return void (await client.close());
      const stuck = connection.getClient();
      // Its last events (a server marked unknown as it closes) must not mark the connection down again.
      stuck.removeAllListeners();
      // setClient() takes a client only on a disconnected connection; the stuck one is, in truth.
      Object.assign(connection, { readyState: mongoose.ConnectionStates.disconnected });
      connection.setClient(client);
      void stuck.close(true).catch(() => undefined);
      onRenew?.({ unansweredMs });
    } catch (error) {
      void client.close(true).catch(() => undefined);
      onRenew?.({ unansweredMs, error });
    } finally {
      renewing = false;
      unansweredSince = undefined;
    }
  };
  const timer = setInterval(() => void check(), Math.min(PING_EVERY_MS, Math.max(100, afterMs / 4)));
  timer.unref();
  connection.on('close', () => {
    closed = true;
    clearInterval(timer);
  });
}

/**
 * Opens a dedicated mongoose connection (never the global one) to a service's own database and
 * waits until the server answers; its client is renewed if it gets stuck (renewWhenStuck).
 */
export async function connectDb({
  url,
  dbName,
  connectTimeoutMs = 30_000,
  renewAfterMs = 60_000,
  logger,
  onRenew = ({ unansweredMs, error }) =>
    logger?.warn(error === undefined ? 'the database client was stuck: replaced it' : 'the database is unreachable', {
      unansweredMs,
      ...(error !== undefined ? { error: (error as Error).message } : {}),
    }),
}: DbOptions): Promise<Connection> {
  const connection = mongoose.createConnection(url, { dbName, serverSelectionTimeoutMS: connectTimeoutMs, autoIndex: true });
  await connection.asPromise();
  if (renewAfterMs > 0) renewWhenStuck(connection, url, { dbName, serverSelectionTimeoutMS: connectTimeoutMs }, renewAfterMs, onRenew);
  return connection;
}
