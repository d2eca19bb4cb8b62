import mongoose, { type Connection } from 'mongoose';
import type { Logger } from '@postbus/logger';
import { HISTORY_DAYS } from '../domain/daily';
import { StatusRepository } from './status.repository';
import type { StatusEngine } from '../domain/status-engine';
import type { SnapshotFile } from './snapshot-file';

const DAYS_WRITE_INTERVAL_MS = 60_000;

/**
 * Copies the engine's state out: to its database (checks appended, the rest replaced by id) and
 * to the snapshot file. Neither is needed to serve: with the database down the writes wait in
 * memory and are retried; the connection is retried until the server answers, and then the
 * engine catches up with what the database had (another instance's incidents, older days).
 */
export class Persistence {
  private connection: Connection | undefined;
  private repository: StatusRepository | undefined;
  private connecting: Promise<void> | undefined;
  private caughtUp = false;
  /** Until the first attempt to connect has ended, the database is neither up nor down. */
  private firstAttemptDone = false;
  private flushTimer: NodeJS.Timeout | undefined;
  private snapshotTimer: NodeJS.Timeout | undefined;
  private snapshotSoon: NodeJS.Timeout | undefined;
  private flushing: Promise<void> = Promise.resolve();
  private writing: Promise<void> = Promise.resolve();
  private savedVersion = -1;
  private lastWarning = 0;
  private lastPrune = 0;
  private lastDaysWrite = 0;
  private stopped = false;

  constructor(
    private readonly options: {
      engine: StatusEngine;
      file: SnapshotFile;
      mongoUrl: string;
      dbName: string;
      logger: Logger;
      flushIntervalMs?: number;
      snapshotIntervalMs?: number;
    },
  ) {}

  /** The live connection, for the database probes (undefined while the server is unreachable). */
  currentConnection(): Connection | undefined {
    return this.connection?.readyState === mongoose.ConnectionStates.connected ? this.connection : undefined;
  }

  /** The connection, 'connecting' during the first attempt at start, or undefined when the server is unreachable. */
  databaseLink(): Connection | 'connecting' | undefined {
    return this.currentConnection() ?? (this.firstAttemptDone ? undefined : 'connecting');
  }

  /** Loads the snapshot file into the engine (nothing else is needed to serve), then starts the loops. */
  async start(): Promise<void> {
    const { engine, file, logger } = this.options;
    try {
      const saved = await file.read();
      if (saved) {
        engine.restore(saved);
        logger.info('state loaded from the snapshot file', { savedAt: saved.savedAt });
      }
    } catch (error) {
      logger.error('the snapshot file could not be read; starting without it', { error, path: file.path });
    }
    engine.onChange = () => this.snapshotOnChange();
    this.connectInBackground();
    this.flushTimer = setInterval(() => {
      this.flushing = this.flushing.then(() => this.flush());
    }, this.options.flushIntervalMs ?? 2000);
    this.snapshotTimer = setInterval(() => void this.writeSnapshot(), this.options.snapshotIntervalMs ?? 5000);
  }

  private connectInBackground(): void {
    if (this.connecting || this.stopped) return;
    this.connecting = (async () => {
      const connection = mongoose.createConnection(this.options.mongoUrl, {
        dbName: this.options.dbName,
        serverSelectionTimeoutMS: 5000,
        // Fail at once while disconnected: the writes wait in the engine, not in mongoose.
        bufferCommands: false,
        autoIndex: true,
      });
      try {
        await connection.asPromise();
        const repository = new StatusRepository(connection);
        const stored = await repository.load();
        this.options.engine.restore(stored);
        this.connection = connection;
        this.repository = repository;
        if (!this.caughtUp) this.options.logger.info('caught up from the database', { incidents: stored.incidents?.length ?? 0 });
        this.caughtUp = true;
      } catch (error) {
        this.warn('database unreachable, retrying', error);
        await connection.close().catch(() => undefined);
      } finally {
        this.firstAttemptDone = true;
        this.connecting = undefined;
      }
    })();
  }

  /** Writes what changed since the last flush; on failure it goes back to the engine for the next one. */
  async flush(): Promise<void> {
    const { engine } = this.options;
    if (!this.repository || !this.currentConnection()) {
      this.connectInBackground();
      return;
    }
    if (engine.pendingCount() === 0) return;
    // The daily records once a minute (and at stop): they change on every tick.
    const days = this.stopped || Date.now() - this.lastDaysWrite >= DAYS_WRITE_INTERVAL_MS;
    const changes = engine.takePending({ days });
    try {
      await this.repository.write(changes);
      if (days) this.lastDaysWrite = Date.now();
      if (Date.now() - this.lastPrune > 86_400_000) {
        this.lastPrune = Date.now();
        await this.repository.pruneChecks(new Date(Date.now() - HISTORY_DAYS * 86_400_000));
      }
    } catch (error) {
      engine.putBack(changes);
      this.warn('writing to the database failed, will retry', error);
    }
  }

  private snapshotOnChange(): void {
    // Debounced: a burst of changes (a maintenance moving five components) is one write.
    if (this.snapshotSoon || this.stopped) return;
    this.snapshotSoon = setTimeout(() => {
      this.snapshotSoon = undefined;
      void this.writeSnapshot();
    }, 250);
  }

  /** Rewrites the snapshot file when the state changed since the last write. */
  writeSnapshot(): Promise<void> {
    this.writing = this.writing.then(async () => {
      const state = this.options.engine.saved();
      if (state.version === this.savedVersion) return;
      try {
        await this.options.file.write(state);
        this.savedVersion = state.version;
      } catch (error) {
        this.warn('writing the snapshot file failed', error);
      }
    });
    return this.writing;
  }

  private warn(message: string, error: unknown): void {
    // Once a minute at most: a database down for an hour is one line a minute, not one a second.
    if (Date.now() - this.lastWarning < 60_000) return;
    this.lastWarning = Date.now();
    this.options.logger.warn(message, { error: error instanceof Error ? error.message : String(error) });
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.flushTimer);
    clearInterval(this.snapshotTimer);
    clearTimeout(this.snapshotSoon);
    await this.flushing;
    await this.connecting;
    await this.flush().catch(() => undefined);
    await this.writeSnapshot();
    await this.connection?.close().catch(() => undefined);
  }
}
