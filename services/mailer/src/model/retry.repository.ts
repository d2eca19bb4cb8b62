import type { Connection } from 'mongoose';
import { DueQueue } from '@postbus/db';
import type { DueRetry, RetrySchedule } from '../domain/ports/schedules';

/** Scheduled attempts of deferred messages (see DueQueue: claims with leases, safe with several instances). */
export class RetryQueue implements RetrySchedule {
  private readonly queue: DueQueue<{ attempt: number }>;
  private readonly scheduledListeners: Array<(dueAt: Date) => void> = [];

  constructor(connection: Connection) {
    this.queue = new DueQueue(connection, 'retries');
  }

  init(): Promise<void> {
    return this.queue.init();
  }

  async schedule(messageId: string, attempt: number, dueAt: Date): Promise<void> {
    await this.queue.schedule(messageId, dueAt, { attempt });
    for (const listener of this.scheduledListeners) listener(dueAt);
  }

  /** Tells `listener` when each attempt scheduled here falls due (the retry worker wakes then). */
  onScheduled(listener: (dueAt: Date) => void): void {
    this.scheduledListeners.push(listener);
  }

  pending(messageId: string): Promise<boolean> {
    return this.queue.pending(messageId);
  }

  async claimDue(limit: number, leaseMs: number): Promise<DueRetry[]> {
    return (await this.queue.claimDue(limit, leaseMs)).map((item) => ({ messageId: item.id, attempt: item.payload.attempt }));
  }

  done(messageId: string): Promise<void> {
    return this.queue.done(messageId);
  }

  /** Drops the scheduled attempts of these messages (erased: nothing is to be sent to them any more). */
  async cancel(messageIds: string[]): Promise<void> {
    await Promise.all(messageIds.map((id) => this.queue.done(id)));
  }
}
