import type { Publisher } from '@postbus/bus';
import { catalogKey, Topics } from '@postbus/contracts';
import type { Logger } from '@postbus/logger';
import type { CatalogChange, CatalogListener, CatalogSource } from './ports/catalog';

export interface CatalogFeedOptions {
  publisher: Pick<Publisher, 'publish'>;
  /** The repositories whose whole state each republish sends. */
  sources: readonly CatalogSource[];
  logger: Logger;
  /** How often the whole catalog is republished, repairing any change whose publish failed. */
  resyncIntervalMs: number;
  /** How soon a full republish is tried after a publish failed. */
  retryAfterFailureMs?: number;
}

/**
 * Publishes every catalog change to the log-compacted catalog topic, keyed by `<kind>:<id>`.
 *
 * The database write comes first and stays the source of truth: when the broker cannot take the
 * change, the request still succeeds (the change is stored) and a full republish from the
 * database follows soon, as it does at start and on a timer. Projections keep the copy with the
 * highest revision, so republished and reordered copies do no harm.
 */
export class CatalogFeed implements CatalogListener {
  private timer: NodeJS.Timeout | undefined;
  private retry: NodeJS.Timeout | undefined;
  private resyncing: Promise<void> | undefined;

  constructor(private readonly options: CatalogFeedOptions) {}

  async changed(change: CatalogChange): Promise<void> {
    try {
      await this.publish(change);
    } catch (error) {
      this.options.logger.warn('publishing a catalog change failed; a full republish will follow', { error, kind: change.kind });
      this.scheduleRetry();
    }
  }

  /** Republishes now and then every resyncIntervalMs. */
  start(): Promise<void> {
    this.timer = setInterval(() => void this.resyncQuietly(), this.options.resyncIntervalMs);
    this.timer.unref();
    return this.resync();
  }

  stop(): void {
    clearInterval(this.timer);
    clearTimeout(this.retry);
  }

  /** Publishes the current state of every catalog entity; concurrent calls share one run. */
  resync(): Promise<void> {
    this.resyncing ??= this.republishAll().finally(() => (this.resyncing = undefined));
    return this.resyncing;
  }

  private async republishAll(): Promise<void> {
    const started = Date.now();
    const snapshots = await Promise.all(this.options.sources.map((s) => s.catalogSnapshot()));
    const changes = snapshots.flat();
    await Promise.all(changes.map((c) => this.publish(c)));
    this.options.logger.info('catalog republished', { entities: changes.length, ms: Date.now() - started });
  }

  private publish(change: CatalogChange): Promise<string> {
    // The union pairs each type with its data; TypeScript cannot correlate the two in one call.
    const publish = this.options.publisher.publish.bind(this.options.publisher) as (
      topic: string,
      type: CatalogChange['type'],
      key: string,
      data: CatalogChange['data'],
    ) => Promise<string>;
    return publish(Topics.Catalog, change.type, catalogKey(change.kind, change.data.id), change.data);
  }

  private resyncQuietly(): void {
    this.resync().catch((error: unknown) => {
      this.options.logger.warn('republishing the catalog failed; retrying', { error });
      this.scheduleRetry();
    });
  }

  private scheduleRetry(): void {
    if (this.retry) return;
    this.retry = setTimeout(() => {
      this.retry = undefined;
      this.resyncQuietly();
    }, this.options.retryAfterFailureMs ?? 5_000);
    this.retry.unref();
  }
}
