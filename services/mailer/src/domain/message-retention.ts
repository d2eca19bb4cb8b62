import { every, type Repeating } from '@postbus/http/every';
import type { Logger } from '@postbus/logger';
import { isAttachmentList, isProjectList, personListsOf } from './message-lists';
import type { AttachmentStore } from '../model/attachment.repository';
import type { MessageLists } from '../model/message-list.repository';
import type { MessageStore } from '../model/message.repository';
import type { ScheduleQueue } from '../model/schedule.repository';

export interface RetentionDeps {
  store: MessageStore;
  lists: MessageLists;
  attachments: Pick<AttachmentStore, 'deleteSets'>;
  schedule: Pick<ScheduleQueue, 'forget'>;
  logger: Logger;
  /** Messages (and their timelines) older than this are deleted (MESSAGE_RETENTION_DAYS). */
  retentionDays: number;
  /** How often the purge runs. */
  intervalMs: number;
}

const DAY_MS = 86_400_000;

/**
 * Keeps the message log to its retention window: every registered list is trimmed to the cutoff,
 * and the messages leaving their project's list (every message is in one) are deleted with their
 * timelines, chunk by chunk in point deletes, and their recipients' and users' lists (not
 * registered) trimmed to the cutoff too, and a scheduled message's decision (and any wait left)
 * with it. Attachments go through their own list (a set is listed before it is stored, so one
 * whose trigger never reached the bus goes too). A purge cut short (a crash, a stop) resumes where
 * it stopped; two instances purging at once only repeat deletes.
 */
export class MessageRetention {
  private loop: Repeating | undefined;

  constructor(private readonly deps: RetentionDeps) {}

  start(): void {
    this.loop = every(this.deps.intervalMs, () => this.purge(), {
      pace: 'rest-between-runs',
      // Not at start-up itself: a restart loop should not purge in a loop.
      firstRunAfterMs: Math.min(this.deps.intervalMs, 60_000),
      onError: (error) => this.deps.logger.warn('purging old messages failed', { error }),
    });
  }

  async stop(): Promise<void> {
    await this.loop?.stop();
  }

  async purge(now = new Date()): Promise<{ lists: number; entries: number; messages: number; events: number; attachmentChunks: number }> {
    const { store, lists, attachments, schedule, retentionDays, logger } = this.deps;
    const cutoff = new Date(now.getTime() - retentionDays * DAY_MS);
    const deleted = { messages: 0, events: 0, attachmentChunks: 0 };
    const result = await lists.trimAll(cutoff, async (list, ids) => {
      if (isAttachmentList(list)) {
        deleted.attachmentChunks += await attachments.deleteSets(ids);
        return;
      }
      if (!isProjectList(list)) return;
      const leaving = [...(await store.messagesById(ids)).values()];
      const people = new Set(leaving.flatMap(personListsOf));
      // Before the messages, whose send_at says which had a schedule: a purge resumed after a crash finds them again.
      await schedule.forget(leaving.filter((m) => m.sendAt).map((m) => m._id));
      const counts = await store.delete(ids);
      await lists.forget(ids);
      deleted.messages += counts.messages;
      deleted.events += counts.events;
      // After the messages: a crash in between leaves entries that point at nothing, which reads
      // skip, and which the trim after a later message of that person's removes.
      for (const person of people) await lists.trim(person, cutoff);
    });
    if (result.removed > 0) logger.info('purged old messages', { cutoff: cutoff.toISOString(), ...deleted, lists: result.lists });
    return { lists: result.lists, entries: result.removed, ...deleted };
  }
}
