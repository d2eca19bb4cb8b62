import type { Logger } from '@postbus/logger';
import type { LastRead, SubscriberRef } from '../domain/notifier';
import { JsonFile } from './snapshot-file';
import type { Subscriber } from '../domain/ports';

/**
 * The confirmed subscribers last read, by id and kind only (no address, no secret), kept in a file
 * beside the outbox: an event during a database outage (just when its incident must go out) is
 * queued for them at once, and their outbox entries wait for the database to be sent. In memory
 * only without an outbox file.
 */
export class LastReadSubscribers implements LastRead {
  private readonly file: JsonFile<SubscriberRef[]> | undefined;
  private lastRead: SubscriberRef[] | undefined;
  /** Resolves once the file has been read (or could not be). */
  readonly loaded: Promise<void>;

  constructor(
    outboxFile: string | undefined,
    private readonly logger?: Logger,
  ) {
    this.file = outboxFile ? new JsonFile<SubscriberRef[]>(`${outboxFile.replace(/\.json$/i, '')}-subscribers.json`) : undefined;
    this.loaded = (async () => {
      try {
        this.lastRead = await this.file?.read();
      } catch (error) {
        this.logger?.warn('the file of the subscribers last read could not be read', { error: (error as Error).message });
      }
    })();
  }

  /** The subscribers last read; undefined when none were read yet. */
  get(): SubscriberRef[] | undefined {
    return this.lastRead;
  }

  /** Keeps the subscribers just read (the file is written only when they changed). */
  async remember(subscribers: Subscriber[]): Promise<void> {
    const refs = subscribers.map(({ id, kind }) => ({ id, kind }));
    if (JSON.stringify(refs) === JSON.stringify(this.lastRead)) return;
    this.lastRead = refs;
    await this.file?.write(refs).catch((error: unknown) => {
      this.logger?.warn('the file of the subscribers last read could not be written', { error: (error as Error).message });
    });
  }
}
