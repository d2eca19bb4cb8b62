import { SecretBox } from '@postbus/crypto';
import type { Teardown } from '@postbus/http';
import type { Logger } from '@postbus/logger';
import type { StatusConfig } from '../config';
import type { SubscriberStore } from '../domain/ports';
import type { StatusEngine } from '../domain/status-engine';
import { DeferredSubscriberStore } from '../model/deferred-subscriber.repository';
import { Persistence } from '../model/persistence';
import { SnapshotFile } from '../model/snapshot-file';

export interface Stores {
  /** The engine's state on disk and in the database; holds the database connection while the server answers. */
  persistence: Persistence;
  /** The subscribers, in the database on whatever connection the persistence has now. */
  subscribers: SubscriberStore;
}

/**
 * Loads the engine from its snapshot file and starts copying its state out; the database is
 * connected in the background, so nothing here waits for MongoDB.
 */
export async function openStores(config: StatusConfig, logger: Logger, engine: StatusEngine, teardown: Teardown): Promise<Stores> {
  const persistence = new Persistence({
    engine,
    file: new SnapshotFile(config.STATUS_SNAPSHOT_FILE),
    mongoUrl: config.MONGO_URL,
    dbName: config.STATUS_DB_NAME,
    logger,
  });
  await persistence.start();
  // Registered once started: stopping writes the engine's state to the snapshot file, which must
  // not happen before that state was loaded from it.
  teardown.add(() => persistence.stop());
  const subscribers = new DeferredSubscriberStore(
    () => persistence.currentConnection(),
    new SecretBox(config.STATUS_SECRETS_KEY || undefined),
    (subscriberId) =>
      logger.warn("a webhook subscriber's secret was sealed under another STATUS_SECRETS_KEY; it is not notified", { subscriberId }),
  );
  return { persistence, subscribers };
}
